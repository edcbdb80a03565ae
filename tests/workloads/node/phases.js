// A Node.js workload that times itself: the main thread runs phases in an
// order drawn at random (seeded), jsAlpha twice as often as the others:
// two pure JavaScript leaves (jsAlpha, jsBeta) and one whose time goes in
// native code, zlib's deflate inside node (nativeDeflate). Each phase's CPU
// time, from the thread's own clock (the first field of
// /proc/thread-self/schedstat: the nanoseconds it ran; node 20 has no
// per-thread CPU clock of its own), is written to OUT as "name seconds"
// lines: the independent expectation a profile's shares are held to. A
// phase runs 20 ms of its own CPU time or a little more, each call of its
// function a few ms (the clock costs ~10 us a read).
//
//   node phases.js OUT SECONDS
'use strict';
const fs = require('fs');
const zlib = require('zlib');

const [OUT, SECONDS] = [process.argv[2], Number(process.argv[3])];
const SLICE_NS = 20e6;

function threadNs() {
  return Number(fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]);
}

let sink = 0;

function jsAlpha() { // integer arithmetic
  let acc = sink | 0;
  for (let i = 0; i < 3000000; i++) acc = (Math.imul(acc, 1103515245) + (i ^ (acc >>> 13))) | 0;
  sink = acc;
}

function jsBeta() { // floating point
  let acc = sink;
  for (let i = 1; i < 400000; i++) acc += Math.sqrt(i + acc * 1e-9) / i;
  sink = acc;
}

const DATA = Buffer.alloc(1 << 18);
for (let i = 0; i < DATA.length; i++) DATA[i] = (i * 7919) % 251 ^ (i >> 5);

function nativeDeflate() { // the time goes in zlib's C code
  sink += zlib.deflateSync(DATA, { level: 6 }).length;
}

// runs fn until SLICE_NS of this thread's CPU time went by
function until(fn) {
  const t0 = threadNs();
  let t;
  do { fn(); t = threadNs(); } while (t - t0 < SLICE_NS);
  return t - t0;
}

// a deterministic shuffle (mulberry32, seed 29): a reader that lags
// behind the samples cannot count one phase as the next systematically
let seed = 29;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function main() {
  const spent = { jsAlpha: 0, jsBeta: 0, nativeDeflate: 0 };
  const plan = [jsAlpha, jsAlpha, jsBeta, nativeDeflate];
  const end = Date.now() + 1000 * SECONDS;
  while (Date.now() < end) {
    for (let i = plan.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [plan[i], plan[j]] = [plan[j], plan[i]];
    }
    for (const fn of plan) spent[fn.name] += until(fn) / 1e9;
  }
  fs.writeFileSync(OUT, Object.keys(spent).sort().map((k) => `${k} ${spent[k].toFixed(6)}\n`).join(''));
}

main();
