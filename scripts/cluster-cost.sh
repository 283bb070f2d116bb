#!/usr/bin/env bash
# What a Redis Cluster master spends per lock()+unlock() pair of work before any client is
# involved: redis-benchmark calls the benchmark's ceiling script (ceiling-pair.lua: all of a pair's
# commands on a free lock, every call) from 16 connections on a plain server and on a cluster-mode
# server owning every slot, first alone, then each with one replica attached, and prints the
# master's CPU per pair (INFO cpu before and after). Same binary, same load, on 127.0.0.1 only;
# every server is stopped at the end. Usage: ./scripts/cluster-cost.sh [pairs per run, 100000]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lua="$root/warden-bench/src/main/resources/dev/warden/bench/ceiling-pair.lua"
pairs=${1:-100000}
work=$(mktemp -d)
base=$((20000 + RANDOM % 20000))
plain=$base plain_replica=$((base + 1)) cluster=$((base + 2)) cluster_replica=$((base + 3))
stop() {
  for port in $plain $plain_replica $cluster $cluster_replica; do
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap stop EXIT
serve() {
  redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --dir "$work" --pidfile "$work/$1.pid" --logfile "$work/$1.log" "${@:2}"
}
serve $plain
serve $plain_replica
serve $cluster --cluster-enabled yes --cluster-config-file "$work/nodes-$cluster.conf"
serve $cluster_replica --cluster-enabled yes --cluster-config-file "$work/nodes-$cluster_replica.conf"
until redis-cli -p $cluster_replica ping >/dev/null 2>&1; do sleep 0.1; done
until redis-cli -p $cluster ping >/dev/null 2>&1; do sleep 0.1; done
redis-cli -p $cluster cluster addslotsrange 0 16383 >/dev/null
until redis-cli -p $cluster cluster info | grep -q cluster_state:ok; do sleep 0.1; done
cpu() {
  redis-cli -p "$1" info cpu | awk -F: '/used_cpu_(user|sys):/ { s += $2 } END { printf "%.6f", s }'
}
measure() {
  local port=$1 label=$2 sha before after rate
  sha=$(redis-cli -p "$port" script load "$(cat "$lua")")
  before=$(cpu "$port")
  rate=$(redis-benchmark -p "$port" -n "$pairs" -c 16 -r 100000 -q \
    evalsha "$sha" 1 '{warden-ceiling:__rand_int__}' owner 30000 2>&1 |
    tr '\r' '\n' | grep 'requests per second' | tail -n 1 | sed 's/.*: //')
  after=$(cpu "$port")
  awk -v label="$label" -v b="$before" -v a="$after" -v n="$pairs" -v rate="$rate" \
    'BEGIN { printf "%-30s %6.2f us of the master'"'"'s CPU per pair (%s)\n", label, (a - b) * 1e6 / n, rate }'
}
for round in 1 2; do
  measure $plain "one server"
  measure $cluster "cluster mode"
done
redis-cli -p $plain_replica replicaof 127.0.0.1 $plain >/dev/null
redis-cli -p $cluster_replica cluster meet 127.0.0.1 $cluster >/dev/null
until redis-cli -p $cluster cluster nodes | grep -q ":$cluster_replica@"; do sleep 0.1; done
until redis-cli -p $cluster_replica cluster nodes | grep -q "myself,master"; do sleep 0.1; done
until redis-cli -p $cluster_replica cluster replicate "$(redis-cli -p $cluster cluster myid)" 2>/dev/null | grep -q OK; do sleep 0.2; done
until redis-cli -p $plain info replication | grep -q 'state=online'; do sleep 0.1; done
until redis-cli -p $cluster info replication | grep -q 'state=online'; do sleep 0.1; done
for round in 1 2; do
  measure $plain "one server + 1 replica"
  measure $cluster "cluster mode + 1 replica"
done
