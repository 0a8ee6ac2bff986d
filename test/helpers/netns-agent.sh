#!/bin/sh
# Open MPI's remote-shell agent for test/mpi-netns.test.ts (`--mca plm_rsh_agent <this file>`):
# mpirun calls it as ssh, "agent [options] host command...", and it runs the command in the
# network namespace that owns the host's address instead of logging in anywhere. The map comes
# from mpirun's environment: LOCUS_NETNS_HOSTS="10.213.5.1=ns-a 10.213.5.2=ns-b". Each launch is
# appended to $LOCUS_NETNS_AGENT_LOG ("host namespace") when that variable is set.
while [ $# -gt 0 ]; do
  case "$1" in
    -*) shift ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "netns-agent: expected 'host command...', got '$*'" >&2
  exit 2
fi
host="$1"
shift
ns=""
for pair in $LOCUS_NETNS_HOSTS; do
  if [ "${pair%%=*}" = "$host" ]; then ns="${pair#*=}"; fi
done
if [ -z "$ns" ]; then
  echo "netns-agent: host '$host' is not in LOCUS_NETNS_HOSTS ('$LOCUS_NETNS_HOSTS')" >&2
  exit 2
fi
if [ -n "$LOCUS_NETNS_AGENT_LOG" ]; then echo "$host $ns" >> "$LOCUS_NETNS_AGENT_LOG"; fi
# Like ssh: the words are joined and run by a shell, here inside the namespace.
exec ip netns exec "$ns" /bin/sh -c "$*"
