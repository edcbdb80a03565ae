'use strict';
/*
 * bench/html.sh's browser side: open one file (scorch's HTML viewer or an
 * SVG) in headless Debian chromium through playwright-core and print one
 * JSON line: time to first draw, zoom, reset and search (median of 5, in
 * the page, around the synchronous calls that redraw), the renderer's JS
 * heap (performance.memory) and the peak RSS (VmHWM) of the browser's
 * processes.
 *   node bench/html_measure.js FILE.html ZOOM_NAME SEARCH_REGEX
 *   node bench/html_measure.js FILE.svg
 */
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { chromium } = require(path.join(__dirname, '../tests/browser/node_modules/playwright-core'));

function tree(pid) {
	const all = [pid];
	for (const p of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(p)) continue;
		try {
			const st = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
			const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
			if (ppid === pid) all.push(...tree(Number(p)));
		} catch (e) { /* gone */ }
	}
	return all;
}
/* Peak RSS of the renderer processes (the page) and of all of chromium. */
function peakKiB(pids) {
	let renderer = 0, sum = 0;
	for (const p of pids) {
		try {
			const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'));
			const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
			if (!m) continue;
			sum += Number(m[1]);
			if (cmd.includes('--type=renderer')) renderer = Math.max(renderer, Number(m[1]));
		} catch (e) { /* gone */ }
	}
	return { renderer, sum };
}
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];

(async () => {
	const [file, zoomName, searchRe] = process.argv.slice(2);
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--enable-precise-memory-info', '--js-flags=--expose-gc']
	});
	const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
	const t0 = Date.now();
	await page.goto(pathToFileURL(file).href, { timeout: 600000, waitUntil: 'load' });
	const r = { file: path.basename(file), bytes: fs.statSync(file).size };
	if (/\.html$/.test(file)) {
		await page.evaluate(() => window.scorch.ready);
		r.openMs = Date.now() - t0;
		Object.assign(r, await page.evaluate(() => ({
			sinceNavigationMs: performance.now(),
			decodeMs: scorch.timing.decodeMs, firstDrawMs: scorch.timing.firstDrawMs,
			frames: scorch.state().frames
		})));
		r.bytesPerFrame = r.bytes / r.frames;
		Object.assign(r, await page.evaluate(([z, s]) => {
			const time = (f) => { const t = performance.now(); f(); return performance.now() - t; };
			const zoom = [], reset = [], search = [], clear = [];
			let share = 0;
			for (let i = 0; i < 5; i++) {
				zoom.push(time(() => scorch.zoomTo(z)));
				reset.push(time(() => scorch.reset()));
				search.push(time(() => { share = scorch.search(s); }));
				clear.push(time(() => scorch.search('')));
			}
			const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
			return { zoomMs: med(zoom), resetMs: med(reset), searchMs: med(search), clearMs: med(clear), share,
				heapMiB: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null };
		}, [zoomName, searchRe]));
	} else {
		r.openMs = Date.now() - t0;
		Object.assign(r, await page.evaluate(() => ({
			sinceNavigationMs: performance.now(),
			frames: document.querySelectorAll('#frames > g, #frames > a').length,
			heapMiB: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null
		})));
	}
	const pk = peakKiB(tree(process.pid).filter((p) => p !== process.pid));
	r.peakRendererMiB = pk.renderer / 1024;
	r.peakAllMiB = pk.sum / 1024;
	await browser.close();
	for (const k of Object.keys(r)) if (typeof r[k] === 'number' && !Number.isInteger(r[k])) r[k] = Math.round(r[k] * 10) / 10;
	console.log(JSON.stringify(r));
})().catch((e) => { console.error(String(e.stack || e)); process.exit(1); });
