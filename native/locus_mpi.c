// Node-API addon over MPI (Open MPI): init with MPI_THREAD_MULTIPLE, rank/size, communicator
// dup, non-blocking send/receive of typed arrays / ArrayBuffers with tags, test/testsome/wait,
// finalize, abort. Every buffer in flight is kept alive by a napi_ref until its request completes.
// Requests are small integer ids; the JS side polls testsome() from the event loop.
#include <mpi.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMMS 64

typedef struct {
  MPI_Request req;
  napi_ref buf;   // the buffer kept alive while in flight
  int kind;       // 1 send, 2 recv
  int active;
} Slot;

static Slot* slots = NULL;
static int nslots = 0;
static int* freeIds = NULL;
static int nfree = 0;
static int inflight = 0;
static MPI_Comm comms[MAX_COMMS];
static int ncomms = 0;
static int provided_level = -1;

#define CHECK(call)                                                   \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error(env, "LOCUS_MPI", "locus-mpi: N-API call failed: " #call); \
      return NULL;                                                    \
    }                                                                 \
  } while (0)

static napi_value throwMpi(napi_env env, const char* what, int rc) {
  char msg[MPI_MAX_ERROR_STRING + 128];
  char es[MPI_MAX_ERROR_STRING];
  int len = 0;
  es[0] = 0;
  MPI_Error_string(rc, es, &len);
  snprintf(msg, sizeof msg, "locus-mpi: %s failed: %s", what, es);
  napi_throw_error(env, "LOCUS_MPI", msg);
  return NULL;
}

static int getInt(napi_env env, napi_value v, int* out) {
  return napi_get_value_int32(env, v, out) == napi_ok;
}

static napi_value mkInt(napi_env env, int v) {
  napi_value r;
  napi_create_int32(env, v, &r);
  return r;
}

// 1 once init() initialized MPI, 2 once finalize() finalized it: ready() reads this flag
// instead of asking MPI on every call (MPI_Initialized and MPI_Finalized may take a lock).
static int mpiState = 0;

static int ready(napi_env env) {
  if (mpiState != 1) {
    napi_throw_error(env, "LOCUS_MPI", mpiState == 2 ? "locus-mpi: MPI is finalized" : "locus-mpi: MPI is not initialized: call init() first");
    return 0;
  }
  return 1;
}

static MPI_Comm commOf(napi_env env, napi_value v, int* ok) {
  int c = 0;
  *ok = 0;
  if (!getInt(env, v, &c) || c < 0 || c >= ncomms || comms[c] == MPI_COMM_NULL) {
    napi_throw_error(env, "LOCUS_MPI", "locus-mpi: unknown communicator handle");
    return MPI_COMM_NULL;
  }
  *ok = 1;
  return comms[c];
}

// init() -> { provided, rank, size }
static napi_value Init(napi_env env, napi_callback_info info) {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) {
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided_level);
    if (rc != MPI_SUCCESS) return throwMpi(env, "MPI_Init_thread", rc);
    // Errors are returned to us (and turned into exceptions) instead of aborting the job.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    comms[0] = MPI_COMM_WORLD;
    ncomms = 1;
  }
  mpiState = 1;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  napi_value o;
  CHECK(napi_create_object(env, &o));
  napi_set_named_property(env, o, "provided", mkInt(env, provided_level));
  napi_set_named_property(env, o, "rank", mkInt(env, rank));
  napi_set_named_property(env, o, "size", mkInt(env, size));
  return o;
}

// constants() -> thread levels and ANY_SOURCE / ANY_TAG
static napi_value Constants(napi_env env, napi_callback_info info) {
  napi_value o;
  CHECK(napi_create_object(env, &o));
  napi_set_named_property(env, o, "THREAD_SINGLE", mkInt(env, MPI_THREAD_SINGLE));
  napi_set_named_property(env, o, "THREAD_FUNNELED", mkInt(env, MPI_THREAD_FUNNELED));
  napi_set_named_property(env, o, "THREAD_SERIALIZED", mkInt(env, MPI_THREAD_SERIALIZED));
  napi_set_named_property(env, o, "THREAD_MULTIPLE", mkInt(env, MPI_THREAD_MULTIPLE));
  napi_set_named_property(env, o, "ANY_SOURCE", mkInt(env, MPI_ANY_SOURCE));
  napi_set_named_property(env, o, "ANY_TAG", mkInt(env, MPI_ANY_TAG));
  napi_set_named_property(env, o, "TAG_UB", mkInt(env, 32767));
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  napi_value s;
  napi_create_string_utf8(env, version, len, &s);
  napi_set_named_property(env, o, "library", s);
  return o;
}

// rank(comm), size(comm)
static napi_value RankOrSize(napi_env env, napi_callback_info info, int wantSize) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (!ready(env)) return NULL;
  int ok;
  MPI_Comm c = commOf(env, argv[0], &ok);
  if (!ok) return NULL;
  int v;
  if (wantSize) MPI_Comm_size(c, &v);
  else MPI_Comm_rank(c, &v);
  return mkInt(env, v);
}
static napi_value Rank(napi_env env, napi_callback_info info) { return RankOrSize(env, info, 0); }
static napi_value Size(napi_env env, napi_callback_info info) { return RankOrSize(env, info, 1); }

// commDup(comm) -> handle (collective)
static napi_value CommDup(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (!ready(env)) return NULL;
  int ok;
  MPI_Comm c = commOf(env, argv[0], &ok);
  if (!ok) return NULL;
  if (ncomms >= MAX_COMMS) {
    napi_throw_error(env, "LOCUS_MPI", "locus-mpi: too many communicators (free some with commFree)");
    return NULL;
  }
  MPI_Comm d;
  int rc = MPI_Comm_dup(c, &d);
  if (rc != MPI_SUCCESS) return throwMpi(env, "MPI_Comm_dup", rc);
  MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
  comms[ncomms] = d;
  return mkInt(env, ncomms++);
}

// commFree(handle) (collective)
static napi_value CommFree(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (!ready(env)) return NULL;
  int h = 0;
  if (!getInt(env, argv[0], &h) || h <= 0 || h >= ncomms || comms[h] == MPI_COMM_NULL) {
    napi_throw_error(env, "LOCUS_MPI", "locus-mpi: commFree: not a communicator made by commDup");
    return NULL;
  }
  MPI_Comm_free(&comms[h]);
  comms[h] = MPI_COMM_NULL;
  return NULL;
}

// The bytes of a typed array, DataView or ArrayBuffer.
static int bytesOf(napi_env env, napi_value v, void** data, size_t* len) {
  bool is;
  napi_is_typedarray(env, v, &is);
  if (is) {
    napi_typedarray_type t;
    size_t n, off;
    napi_value ab;
    if (napi_get_typedarray_info(env, v, &t, &n, data, &ab, &off) != napi_ok) return 0;
    size_t el = 1;
    switch (t) {
      case napi_int16_array: case napi_uint16_array: el = 2; break;
      case napi_int32_array: case napi_uint32_array: case napi_float32_array: el = 4; break;
      case napi_float64_array: case napi_bigint64_array: case napi_biguint64_array: el = 8; break;
      default: el = 1;
    }
    *len = n * el;
    return 1;
  }
  napi_is_dataview(env, v, &is);
  if (is) {
    napi_value ab;
    size_t off;
    return napi_get_dataview_info(env, v, len, data, &ab, &off) == napi_ok;
  }
  napi_is_arraybuffer(env, v, &is);
  if (is) return napi_get_arraybuffer_info(env, v, data, len) == napi_ok;
  return 0;
}

static int newSlot(void) {
  if (nfree > 0) return freeIds[--nfree];
  int id = nslots++;
  slots = realloc(slots, sizeof(Slot) * nslots);
  freeIds = realloc(freeIds, sizeof(int) * nslots);
  memset(&slots[id], 0, sizeof(Slot));
  return id;
}

static void freeSlot(napi_env env, int id) {
  if (slots[id].buf) napi_delete_reference(env, slots[id].buf);
  slots[id].buf = NULL;
  slots[id].active = 0;
  slots[id].req = MPI_REQUEST_NULL;
  freeIds[nfree++] = id;
  inflight--;
}

// Reads a call's `want` arguments into argv (`usage` names them when fewer are given) and the
// message arguments shared by Post and Blocking, (buffer, peer, tag, comm), from argv[0..3].
// Returns 0 with a JS exception pending (or MPI not ready) when one is missing or invalid.
typedef struct {
  void* data;
  size_t len;
  int peer;
  int tag;
  MPI_Comm comm;
} MessageArgs;

static int messageArgs(napi_env env, napi_callback_info info, size_t want, const char* usage,
                       napi_value* argv, MessageArgs* m) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
    napi_throw_error(env, "LOCUS_MPI", "locus-mpi: cannot read the arguments");
    return 0;
  }
  if (!ready(env)) return 0;
  if (argc < want) {
    napi_throw_type_error(env, "LOCUS_MPI", usage);
    return 0;
  }
  if (!bytesOf(env, argv[0], &m->data, &m->len)) {
    napi_throw_type_error(env, "LOCUS_MPI", "locus-mpi: the buffer must be a typed array, DataView or ArrayBuffer");
    return 0;
  }
  if (m->len > 0x7fffffff) {
    napi_throw_range_error(env, "LOCUS_MPI", "locus-mpi: buffers of 2 GiB or more are not supported");
    return 0;
  }
  if (!getInt(env, argv[1], &m->peer) || !getInt(env, argv[2], &m->tag)) {
    napi_throw_type_error(env, "LOCUS_MPI", "locus-mpi: peer and tag must be integers");
    return 0;
  }
  int ok;
  m->comm = commOf(env, argv[3], &ok);
  return ok;
}

// isend(buffer, dest, tag, comm) / irecv(buffer, source, tag, comm) -> request id
static napi_value Post(napi_env env, napi_callback_info info, int kind) {
  napi_value argv[4];
  MessageArgs m;
  if (!messageArgs(env, info, 4, "locus-mpi: expected (buffer, peer, tag, comm)", argv, &m)) return NULL;
  int id = newSlot();
  Slot* s = &slots[id];
  int rc = kind == 1 ? MPI_Isend(m.data, (int)m.len, MPI_BYTE, m.peer, m.tag, m.comm, &s->req)
                     : MPI_Irecv(m.data, (int)m.len, MPI_BYTE, m.peer, m.tag, m.comm, &s->req);
  if (rc != MPI_SUCCESS) {
    freeIds[nfree++] = id;
    return throwMpi(env, kind == 1 ? "MPI_Isend" : "MPI_Irecv", rc);
  }
  napi_create_reference(env, argv[0], 1, &s->buf);
  s->kind = kind;
  s->active = 1;
  inflight++;
  return mkInt(env, id);
}
static napi_value Isend(napi_env env, napi_callback_info info) { return Post(env, info, 1); }
static napi_value Irecv(napi_env env, napi_callback_info info) { return Post(env, info, 2); }

// [id, source, tag, bytes, error, error text?] for a completed request
static napi_value completion(napi_env env, int id, MPI_Status* st) {
  napi_value a;
  napi_create_array_with_length(env, 6, &a);
  int count = 0;
  int err = st->MPI_ERROR;
  if (slots[id].kind == 2) MPI_Get_count(st, MPI_BYTE, &count);
  napi_set_element(env, a, 0, mkInt(env, id));
  napi_set_element(env, a, 1, mkInt(env, slots[id].kind == 2 ? st->MPI_SOURCE : -1));
  napi_set_element(env, a, 2, mkInt(env, slots[id].kind == 2 ? st->MPI_TAG : -1));
  napi_set_element(env, a, 3, mkInt(env, count));
  napi_set_element(env, a, 4, mkInt(env, err == MPI_SUCCESS ? 0 : err));
  if (err != MPI_SUCCESS) {
    char es[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, es, &len);
    napi_value s;
    napi_create_string_utf8(env, es, len, &s);
    napi_set_element(env, a, 5, s);
  }
  return a;
}

// Scratch arrays of Testsome, grown with the slot table (no allocation per call).
static MPI_Request* tsReqs = NULL;
static int* tsIdx = NULL;
static MPI_Status* tsSts = NULL;
static int tsCap = 0;

// testsome(spinUs, out) -> number of completed requests, written to the Int32Array `out` as
// 5 ints each: [id, source, tag, bytes received, MPI error code (0: none)] (no JS object is
// made per completion); frees the completed requests. `out` must hold 5 ints per request in
// flight. With spinUs > 0 it busy-polls MPI_Testsome for up to spinUs microseconds while
// nothing has completed (a bounded spin: a message that lands within that time is returned
// by this call instead of a later one); it returns as soon as anything completes.
static napi_value Testsome(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t* out = NULL;
  size_t outLen = 0;
  if (argc >= 2) {
    napi_typedarray_type t;
    napi_value ab;
    size_t off;
    void* data;
    if (napi_get_typedarray_info(env, argv[1], &t, &outLen, &data, &ab, &off) == napi_ok && t == napi_int32_array)
      out = data;
  }
  if (!out) {
    napi_throw_type_error(env, "LOCUS_MPI", "locus-mpi: testsome(spinUs, out): out must be an Int32Array");
    return NULL;
  }
  if (inflight == 0) return mkInt(env, 0);
  if (!ready(env)) return NULL;
  if (outLen < (size_t)inflight * 5) {
    napi_throw_range_error(env, "LOCUS_MPI", "locus-mpi: testsome: out must hold 5 ints per request in flight");
    return NULL;
  }
  double spinUs = 0;
  napi_get_value_double(env, argv[0], &spinUs);
  if (!(spinUs >= 0)) spinUs = 0;
  if (spinUs > 1e6) spinUs = 1e6;  // never more than a second, whatever is asked
  int n = nslots;
  if (n > tsCap) {
    tsReqs = realloc(tsReqs, sizeof(MPI_Request) * n);
    tsIdx = realloc(tsIdx, sizeof(int) * n);
    tsSts = realloc(tsSts, sizeof(MPI_Status) * n);
    tsCap = n;
  }
  for (int i = 0; i < n; i++) tsReqs[i] = slots[i].active ? slots[i].req : MPI_REQUEST_NULL;
  int outcount = 0;
  int rc;
  double until = spinUs > 0 ? MPI_Wtime() + spinUs * 1e-6 : 0;
  for (;;) {
    rc = MPI_Testsome(n, tsReqs, &outcount, tsIdx, tsSts);
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return throwMpi(env, "MPI_Testsome", rc);
    if (outcount == MPI_UNDEFINED) outcount = 0;
    if (outcount > 0 || spinUs <= 0 || MPI_Wtime() >= until) break;
  }
  // Testsome set the completed entries to MPI_REQUEST_NULL; the slots still hold the old
  // handles, which freeSlot clears.
  for (int k = 0; k < outcount; k++) {
    int id = tsIdx[k];
    MPI_Status* st = &tsSts[k];
    int err = rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : MPI_SUCCESS;
    int count = 0;
    int recv = slots[id].kind == 2;
    if (recv && err == MPI_SUCCESS) MPI_Get_count(st, MPI_BYTE, &count);
    int32_t* o = out + 5 * k;
    o[0] = id;
    o[1] = recv ? st->MPI_SOURCE : -1;
    o[2] = recv ? st->MPI_TAG : -1;
    o[3] = count;
    o[4] = err == MPI_SUCCESS ? 0 : err;
    freeSlot(env, id);
  }
  return mkInt(env, outcount);
}

// sendBlocking(buffer, dest, tag, comm, timeoutS, out) / recvBlocking(buffer, source, tag,
// comm, timeoutS, out) -> 1 once the message went or came (its [-1, source, tag, bytes, error]
// written to the Int32Array `out`), 0 if it did not within timeoutS seconds (it then stays in
// flight as a request, its buffer kept alive, and the caller aborts the job). One call, no
// request slot: the blocking calls of the API. Blocks the calling thread; timeoutS <= 0: no limit.
static napi_value Blocking(napi_env env, napi_callback_info info, int kind) {
  napi_value argv[6];
  MessageArgs m;
  if (!messageArgs(env, info, 6, "locus-mpi: expected (buffer, peer, tag, comm, timeoutS, out)", argv, &m)) return NULL;
  double timeoutS = 0;
  napi_get_value_double(env, argv[4], &timeoutS);
  napi_typedarray_type t;
  napi_value ab;
  size_t off, olen = 0;
  void* odata = NULL;
  if (napi_get_typedarray_info(env, argv[5], &t, &olen, &odata, &ab, &off) != napi_ok || t != napi_int32_array || olen < 5) {
    napi_throw_type_error(env, "LOCUS_MPI", "locus-mpi: out must be an Int32Array of 5 ints or more");
    return NULL;
  }
  MPI_Request req;
  int rc = kind == 1 ? MPI_Isend(m.data, (int)m.len, MPI_BYTE, m.peer, m.tag, m.comm, &req)
                     : MPI_Irecv(m.data, (int)m.len, MPI_BYTE, m.peer, m.tag, m.comm, &req);
  if (rc != MPI_SUCCESS) return throwMpi(env, kind == 1 ? "MPI_Isend" : "MPI_Irecv", rc);
  MPI_Status st;
  if (timeoutS > 0) {
    double until = MPI_Wtime() + timeoutS;
    int flag = 0;
    for (;;) {
      rc = MPI_Test(&req, &flag, &st);
      if (rc != MPI_SUCCESS || flag) break;
      if (MPI_Wtime() >= until) {
        // Still in flight: a slot keeps its buffer alive until the job ends.
        int id = newSlot();
        slots[id].req = req;
        napi_create_reference(env, argv[0], 1, &slots[id].buf);
        slots[id].kind = kind;
        slots[id].active = 1;
        inflight++;
        return mkInt(env, 0);
      }
    }
  } else {
    rc = MPI_Wait(&req, &st);
  }
  int32_t* o = odata;
  int count = 0;
  if (kind == 2 && rc == MPI_SUCCESS) MPI_Get_count(&st, MPI_BYTE, &count);
  o[0] = -1;
  o[1] = kind == 2 ? st.MPI_SOURCE : m.peer;
  o[2] = kind == 2 ? st.MPI_TAG : m.tag;
  o[3] = count;
  o[4] = rc == MPI_SUCCESS ? 0 : rc;
  return mkInt(env, 1);
}
static napi_value SendBlocking(napi_env env, napi_callback_info info) { return Blocking(env, info, 1); }
static napi_value RecvBlocking(napi_env env, napi_callback_info info) { return Blocking(env, info, 2); }

// errorText(code) -> MPI_Error_string of an MPI error code
static napi_value ErrorText(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int code = 0;
  getInt(env, argv[0], &code);
  char es[MPI_MAX_ERROR_STRING];
  int len = 0;
  es[0] = 0;
  if (MPI_Error_string(code, es, &len) != MPI_SUCCESS) len = snprintf(es, sizeof es, "MPI error %d", code);
  napi_value s;
  napi_create_string_utf8(env, es, len, &s);
  return s;
}

static int reqArg(napi_env env, napi_callback_info info, int* id) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return 0;
  if (!getInt(env, argv[0], id) || *id < 0 || *id >= nslots || !slots[*id].active) {
    napi_throw_error(env, "LOCUS_MPI", "locus-mpi: not a request in flight");
    return 0;
  }
  return 1;
}

// test(id) -> completion or null
static napi_value Test(napi_env env, napi_callback_info info) {
  int id;
  if (!ready(env) || !reqArg(env, info, &id)) return NULL;
  int flag = 0;
  MPI_Status st;
  int rc = MPI_Test(&slots[id].req, &flag, &st);
  if (rc != MPI_SUCCESS) return throwMpi(env, "MPI_Test", rc);
  if (!flag) {
    napi_value n;
    napi_get_null(env, &n);
    return n;
  }
  st.MPI_ERROR = MPI_SUCCESS;
  napi_value r = completion(env, id, &st);
  freeSlot(env, id);
  return r;
}

// wait(id) -> completion (blocks the thread)
static napi_value Wait(napi_env env, napi_callback_info info) {
  int id;
  if (!ready(env) || !reqArg(env, info, &id)) return NULL;
  MPI_Status st;
  int rc = MPI_Wait(&slots[id].req, &st);
  if (rc != MPI_SUCCESS) return throwMpi(env, "MPI_Wait", rc);
  st.MPI_ERROR = MPI_SUCCESS;
  napi_value r = completion(env, id, &st);
  freeSlot(env, id);
  return r;
}

// inflight() -> number of requests in flight
static napi_value Inflight(napi_env env, napi_callback_info info) { return mkInt(env, inflight); }

// barrier(comm) (blocking)
static napi_value Barrier(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (!ready(env)) return NULL;
  int ok;
  MPI_Comm c = commOf(env, argv[0], &ok);
  if (!ok) return NULL;
  int rc = MPI_Barrier(c);
  if (rc != MPI_SUCCESS) return throwMpi(env, "MPI_Barrier", rc);
  return NULL;
}

// wtime() -> seconds
static napi_value Wtime(napi_env env, napi_callback_info info) {
  napi_value r;
  napi_create_double(env, MPI_Wtime(), &r);
  return r;
}

// finalize(); true when MPI was finalized by this call
static napi_value Finalize(napi_env env, napi_callback_info info) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  napi_value r;
  if (!init || fin) {
    napi_get_boolean(env, false, &r);
    return r;
  }
  if (inflight > 0) {
    napi_throw_error(env, "LOCUS_MPI", "locus-mpi: finalize with requests in flight: wait for them first");
    return NULL;
  }
  for (int i = 1; i < ncomms; i++)
    if (comms[i] != MPI_COMM_NULL) MPI_Comm_free(&comms[i]);
  MPI_Finalize();
  mpiState = 2;
  napi_get_boolean(env, true, &r);
  return r;
}

// abort(code): ends every process of the job
static napi_value Abort(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int code = 1;
  if (argc > 0) getInt(env, argv[0], &code);
  MPI_Abort(MPI_COMM_WORLD, code);
  return NULL;
}

// state() -> 'uninitialized' | 'initialized' | 'finalized'
static napi_value State(napi_env env, napi_callback_info info) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  napi_value s;
  const char* t = fin ? "finalized" : init ? "initialized" : "uninitialized";
  napi_create_string_utf8(env, t, NAPI_AUTO_LENGTH, &s);
  return s;
}

#define FN(name, fn) {name, NULL, fn, NULL, NULL, NULL, napi_default, NULL}

NAPI_MODULE_INIT() {
  napi_property_descriptor d[] = {
      FN("init", Init),       FN("constants", Constants), FN("rank", Rank),
      FN("size", Size),       FN("commDup", CommDup),     FN("commFree", CommFree),
      FN("isend", Isend),     FN("irecv", Irecv),         FN("testsome", Testsome),
      FN("test", Test),       FN("wait", Wait),           FN("inflight", Inflight),
      FN("barrier", Barrier), FN("wtime", Wtime),         FN("finalize", Finalize),
      FN("abort", Abort),     FN("state", State),       FN("errorText", ErrorText),
      FN("sendBlocking", SendBlocking),
      FN("recvBlocking", RecvBlocking),
  };
  napi_define_properties(env, exports, sizeof d / sizeof d[0], d);
  return exports;
}
