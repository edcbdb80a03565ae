'use strict';
/*
 * The heat map of `scorch query -o FILE.html`, opened in headless chromium
 * (tests/browser's harness): for each case of the JSON file given, the
 * page's scorch.heatmap() must have column 0 at the expected epoch time,
 * the expected number of columns, exactly the expected counts per cell
 * (each interval's samples in the cell of its start, every other cell
 * empty), a total equal to the graph's, and a range over one interval
 * must show that interval's share. The expectations are worked out by
 * tests/fleet/run from the inputs it put into the stores.
 *
 *   node heatmap.js CASES.json     (CHROMIUM, TMPDIR from the environment)
 *   CASES.json: [{name, file, origin: "ns", seconds, cells: [[col, row, count]...],
 *                 range: [t0, t1, count]}]
 */
const fs = require('fs');
const { pathToFileURL } = require('url');
const { runAll } = require('../browser/lib/harness');

const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const tests = cases.map((k) => ({
	name: `fleet/${k.name}`,
	fn: async (c) => {
		await c.page.goto(pathToFileURL(k.file).href);
		await c.page.evaluate(() => window.scorch.ready);
		const h = await c.page.evaluate(() => window.scorch.heatmap());
		c.check(h !== null, 'a heat map');
		c.equal(h.origin, k.origin, 'column 0 starts at (epoch ns)');
		c.equal(h.seconds, k.seconds, 'columns (seconds)');
		const want = new Map(k.cells.map(([col, row, n]) => [`${col}/${row}`, n]));
		let total = 0;
		for (let col = 0; col < h.counts.length; col++) {
			for (let row = 0; row < h.counts[col].length; row++) {
				const n = h.counts[col][row];
				total += n;
				c.equal(n, want.get(`${col}/${row}`) || 0, `count in second ${col}, row ${row}`);
			}
		}
		const root = (await c.page.evaluate(() => window.scorch.frames())).find((f) => f.depth === 0).w;
		c.equal(total, root, 'heat map total = the graph\'s samples');
		const [t0, t1, n] = k.range;
		const share = await c.page.evaluate(([a, b]) => window.scorch.range(a, b), [t0, t1]);
		c.near(share, n / total, 1e-9, `range ${t0}..${t1} s: its share`);
		const inRange = (await c.page.evaluate(() => window.scorch.frames())).find((f) => f.depth === 0).w;
		c.equal(inRange, n, `range ${t0}..${t1} s: the graph's samples`);
	}
}));
runAll(tests).then((failed) => {
	process.exitCode = failed ? 1 : 0;
});
