'use strict';
/*
 * bench/time.sh's browser side: open an HTML file with a heat map in
 * headless Debian chromium (playwright-core) and print one JSON line: time
 * to the first draw (navigation to scorch.ready, and the page's own decode
 * and first-draw figures), then the redraw time of range selections of
 * 1 s, 10 s, 60 s and the whole recording and of a comparison of two 60 s
 * ranges (median of 5, in the page, around the synchronous calls that
 * recompute and redraw the graph), and the JS heap.
 *   node bench/time_measure.js FILE.html
 */
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { chromium } = require(path.join(__dirname, '../tests/browser/node_modules/playwright-core'));

(async () => {
	const file = process.argv[2];
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--enable-precise-memory-info']
	});
	const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
	const t0 = Date.now();
	await page.goto(pathToFileURL(file).href, { timeout: 600000, waitUntil: 'load' });
	await page.evaluate(() => window.scorch.ready);
	const r = { file: path.basename(file), bytes: fs.statSync(file).size, openMs: Date.now() - t0 };
	Object.assign(r, await page.evaluate(() => {
		const h = scorch.heatmap();
		let samples = 0;
		for (const col of h.counts) for (const v of col) samples += v;
		return { sinceNavigationMs: performance.now(), decodeMs: scorch.timing.decodeMs,
			firstDrawMs: scorch.timing.firstDrawMs, frames: scorch.state().frames, seconds: h.seconds, total: samples };
	}));
	Object.assign(r, await page.evaluate(() => {
		const time = (f) => { const t = performance.now(); f(); return performance.now() - t; };
		const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
		const S = scorch.heatmap().seconds, out = {};
		for (const [k, len] of [['range1sMs', 1], ['range10sMs', 10], ['range60sMs', 60], ['rangeAllMs', S]]) {
			const t = [];
			for (let i = 0; i < 5; i++) {
				const a = (i * 37) % Math.max(1, S - len);
				t.push(time(() => scorch.range(a, a + len)));
			}
			out[k] = med(t);
		}
		const c = [];
		for (let i = 0; i < 5; i++) c.push(time(() => scorch.compare([i * 10, i * 10 + 60], [300 + i * 10, 360 + i * 10])));
		out.compare60sMs = med(c);
		const cl = [];
		for (let i = 0; i < 5; i++) { scorch.range(10, 20); cl.push(time(() => scorch.range(null))); }
		out.clearMs = med(cl);
		out.heapMiB = performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null;
		return out;
	}));
	await browser.close();
	for (const k of Object.keys(r)) if (typeof r[k] === 'number' && !Number.isInteger(r[k])) r[k] = Math.round(r[k] * 10) / 10;
	console.log(JSON.stringify(r));
})().catch((e) => { console.error(String(e.stack || e)); process.exit(1); });
