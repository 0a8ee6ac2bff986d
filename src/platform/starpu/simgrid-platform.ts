/**
 * Reads the SimGrid platform file StarPU writes for a sampled machine
 * (`bus/<host>.platform.v4.xml`): its hosts (MAIN, CPU0.., CUDA0.., OpenCL0.., RAM, DISK0) with
 * their properties (a GPU's `memsize`, `model`, `memcpy_peer`), its links (bandwidth in B/s,
 * latency in s) and its routes (the links a copy from one memory to another crosses, in order:
 * the route's own link, then shared ones such as the `Host` PCI bus). Parsed with
 * fast-xml-parser, an optional package loaded on first use (only this import needs it); cost
 * linear in the file.
 */
import { LocusError } from '../../core/types.ts';

type XmlParserClass = typeof import('fast-xml-parser').XMLParser;
let xmlParser: Promise<XmlParserClass> | undefined;

/** Imports fast-xml-parser once; a one-line LocusError naming the install command if absent. */
function loadXmlParser(): Promise<XmlParserClass> {
  xmlParser ??= import('fast-xml-parser').then(
    (m) => m.XMLParser,
    (e: NodeJS.ErrnoException) => {
      xmlParser = undefined;
      if (e.code !== 'ERR_MODULE_NOT_FOUND') throw e;
      throw new LocusError(
        'LOCUS_OPTIONAL_PACKAGE_MISSING',
        "importing StarPU's machines needs the optional package fast-xml-parser: run `npm install fast-xml-parser`",
      );
    },
  );
  return xmlParser;
}

/** A SimGrid host. */
export interface SimgridHost {
  id: string;
  /** Its speed in flop/s (StarPU writes a placeholder for its devices). */
  speed: number;
  /** Its `prop` elements by id. */
  props: Record<string, string>;
}

/** A SimGrid link. */
export interface SimgridLink {
  id: string;
  /** Bytes per second. */
  bandwidth: number;
  /** Seconds. */
  latency: number;
}

/** A route between two hosts. */
export interface SimgridRoute {
  src: string;
  dst: string;
  /** The ids of the links it crosses, in order. */
  links: string[];
}

/** A parsed platform. */
export interface SimgridPlatform {
  hosts: SimgridHost[];
  links: Map<string, SimgridLink>;
  routes: SimgridRoute[];
}

const asArray = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

/** A SimGrid quantity: a number with an optional unit among those StarPU writes (Bps, s, f). */
function quantity(text: string, what: string, file: string): number {
  const m = /^([0-9.eE+-]+)\s*(Bps|kBps|MBps|GBps|s|ms|us|ns|f)?$/.exec(text.trim());
  const scale: Record<string, number> = { kBps: 1e3, MBps: 1e6, GBps: 1e9, ms: 1e-3, us: 1e-6, ns: 1e-9 };
  const v = m ? Number(m[1]) * (scale[m[2] ?? ''] ?? 1) : Number.NaN;
  if (!Number.isFinite(v) || v < 0)
    throw new LocusError('LOCUS_PLATFORM_INVALID', `${file}: ${what} '${text}' is not a SimGrid quantity`);
  return v;
}

/** Parses the XML text of a SimGrid platform (version 4); `file` names it in errors. */
export async function parseSimgridPlatform(text: string, file: string): Promise<SimgridPlatform> {
  const XMLParser = await loadXmlParser();
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    allowBooleanAttributes: true,
  });
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `${file}: not XML (${(e as Error).message.split('\n')[0]})`,
    );
  }
  const platform = doc.platform as Record<string, unknown> | undefined;
  // StarPU wraps everything in one full-routing zone (<AS> in version 4, <zone> in 4.1).
  const zone = (platform?.AS ?? platform?.zone) as Record<string, unknown> | undefined;
  if (zone === undefined)
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `${file}: no <platform><AS> (or <zone>): not a SimGrid platform file`,
    );
  type Attr = Record<string, string | Record<string, string> | Record<string, string>[]>;
  const hosts: SimgridHost[] = asArray(zone.host as Attr | Attr[]).map((h) => ({
    id: String(h.id),
    speed: quantity(String(h.speed ?? '1f'), `host ${String(h.id)}'s speed`, file),
    props: Object.fromEntries(
      asArray(h.prop as Record<string, string> | Record<string, string>[]).map((p) => [
        String(p.id),
        String(p.value),
      ]),
    ),
  }));
  const links = new Map<string, SimgridLink>();
  for (const l of asArray(zone.link as Record<string, string> | Record<string, string>[])) {
    const id = String(l.id);
    links.set(id, {
      id,
      bandwidth: quantity(String(l.bandwidth), `link ${id}'s bandwidth`, file),
      latency: quantity(String(l.latency ?? '0s'), `link ${id}'s latency`, file),
    });
  }
  const routes: SimgridRoute[] = asArray(zone.route as Attr | Attr[]).map((r) => {
    const ctn = asArray(r.link_ctn as Record<string, string> | Record<string, string>[]).map((c) =>
      String(c.id),
    );
    for (const id of ctn)
      if (!links.has(id))
        throw new LocusError(
          'LOCUS_PLATFORM_INVALID',
          `${file}: route ${r.src} -> ${r.dst} crosses link ${id}, which is not declared`,
        );
    return { src: String(r.src), dst: String(r.dst), links: ctn };
  });
  return { hosts, links, routes };
}
