// Preloaded with --require by bench.mjs (CommonJS, so backupctl does not load
// node's ES module loader for it): writes to $BENCH_CPU_FILE, as JSON, the CPU
// time (user + system, ms) the process had used when it opened its first
// socket (the first request), when it first wrote to stdout (the first
// record) and when it exited. Unlike wall time, CPU time hardly moves when
// the machine is busy: it says where a start-up's time goes even on a
// shared machine. The walker and backupctl both load node:net anyway.
'use strict';
const dc = require('node:diagnostics_channel');
const net = require('node:net');
const { writeFileSync } = require('node:fs');

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const marks = {};
dc.subscribe('net.client.socket', () => {
  marks.request ??= cpu();
});
// stdout into a pipe is a net.Socket on fd 1: its first write is the first record.
for (const method of ['_write', '_writev']) {
  const original = net.Socket.prototype[method];
  net.Socket.prototype[method] = function (...args) {
    if (marks.record === undefined && this._handle && this._handle.fd === 1) marks.record = cpu();
    return original.apply(this, args);
  };
}
process.on('exit', () => {
  if (process.env.BENCH_CPU_FILE) writeFileSync(process.env.BENCH_CPU_FILE, JSON.stringify({ ...marks, exit: cpu() }));
});
