// Preloaded (`node --require`) into a third-party tool the suite runs: any
// attempt to reach the network ends the process with exit 99, so a test proves
// the tool works offline and sends nothing (telemetry, update checks).
const net = require('node:net');
const dns = require('node:dns');
function deny(what) {
  return () => {
    process.stderr.write(`no-network: ${what} attempted\n`);
    process.exit(99);
  };
}
net.Socket.prototype.connect = deny('a connection');
dns.lookup = deny('a DNS lookup');
dns.promises.lookup = deny('a DNS lookup');
globalThis.fetch = deny('fetch()');
