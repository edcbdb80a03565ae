'use strict';
/* Pure logic of src/render/viewer/flamegraph.js, under node's test runner. */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const FILE = path.join(__dirname, '..', '..', '..', 'src', 'render', 'viewer', 'flamegraph.js');
const v = require(FILE);

test('viewer source can sit inside CDATA and any encoding', () => {
	const src = fs.readFileSync(FILE);
	assert.equal(src.includes(']]>'), false, 'the CDATA terminator must not appear');
	for (const b of src) assert.ok(b === 9 || b === 10 || (b >= 32 && b < 127), `non-ASCII or control byte ${b}`);
	assert.match(src.toString(), /\nfunction init\(evt\)/, 'global init(evt) for onload');
});

test('viewer loads as a browser script without module and defines init', () => {
	const vm = require('vm');
	const ctx = { scorchConfig: {} };
	vm.createContext(ctx);
	vm.runInContext(fs.readFileSync(FILE, 'utf8'), ctx);
	assert.equal(typeof ctx.init, 'function');
	assert.equal(typeof ctx.scorchViewer.fitLabel, 'function');
	/* a DOM element named "module" (a frame id from --nameattr) is left alone */
	const ctx2 = { module: { id: 'module' } };
	vm.createContext(ctx2);
	vm.runInContext(fs.readFileSync(FILE, 'utf8'), ctx2);
	assert.equal(ctx2.module.exports, undefined);
});

test('formatCount adds thousands separators', () => {
	assert.equal(v.formatCount(0), '0');
	assert.equal(v.formatCount(999), '999');
	assert.equal(v.formatCount(1000), '1,000');
	assert.equal(v.formatCount(1234567), '1,234,567');
	assert.equal(v.formatCount(-1234), '-1,234');
	assert.equal(v.formatCount(1234.6), '1,235');
	assert.equal(v.parseCount('1,234,567'), 1234567);
	assert.ok(Number.isNaN(v.parseCount('12a')));
});

test('parseTitle splits name, count, percentage and delta', () => {
	assert.deepEqual(v.parseTitle('foo (1,234 samples, 12.34%)', 'samples'),
		{ name: 'foo', count: 1234, countText: '1,234', unit: 'samples', pct: '12.34', delta: '' });
	const t = v.parseTitle('ns::f(int, char) (7 samples, 0.70%)', 'samples');
	assert.equal(t.name, 'ns::f(int, char)');
	assert.equal(t.count, 7);
	const d = v.parseTitle('a (10 samples, 10.00%; +2.50%)', 'samples');
	assert.equal(d.delta, '+2.50%');
	assert.equal(v.parseTitle('all (100 ms, 100%)', 'ms').name, 'all');
	assert.equal(v.parseTitle('x (3 weird unit, 1.00%)', '').unit, 'weird unit');
	/* a --nameattr title: no count */
	const n = v.parseTitle('custom tooltip', 'samples');
	assert.equal(n.name, 'custom tooltip');
	assert.ok(Number.isNaN(n.count));
	/* a unit with regex characters is literal */
	assert.equal(v.parseTitle('f (2 a.b, 1.00%)', 'a.b').count, 2);
	assert.ok(Number.isNaN(v.parseTitle('f (2 axb, 1.00%)', 'a.b').count));
});

test('detailsText shows both percentages only when zoomed', () => {
	const info = v.parseTitle('foo (1,234 samples, 12.34%)', 'samples');
	assert.equal(v.detailsText('Function:', 'foo (1,234 samples, 12.34%)', info, 10000, 0),
		'Function: foo (1,234 samples, 12.34%)');
	assert.equal(v.detailsText('Function:', 'foo (1,234 samples, 12.34%)', info, 10000, 2468),
		'Function: foo (1,234 samples, 12.34% of all, 50.00% of zoomed)');
	const d = v.parseTitle('a (10 samples, 10.00%; -2.00%)', 'samples');
	assert.equal(v.detailsText('', 'a (10 samples, 10.00%; -2.00%)', d, 100, 40),
		'a (10 samples, 10.00% of all, 25.00% of zoomed; -2.00%)');
	const n = v.parseTitle('custom', 'samples');
	assert.equal(v.detailsText('Function:', 'custom', n, 100, 40), 'Function: custom');
});

test('matchedSum counts nested matches once', () => {
	/* parent [10,110) with children [10,60) and [60,110), plus a separate [200,250) */
	assert.equal(v.matchedSum([{ x: 10, w: 100, count: 100 }, { x: 10, w: 50, count: 50 },
		{ x: 60, w: 50, count: 50 }, { x: 200, w: 50, count: 50 }]), 150);
	/* adjacent siblings both count */
	assert.equal(v.matchedSum([{ x: 60, w: 50, count: 5 }, { x: 10, w: 50, count: 7 }]), 12);
	/* a deeper match inside a shallower one, given in any order */
	assert.equal(v.matchedSum([{ x: 20, w: 10, count: 1 }, { x: 10, w: 100, count: 10 }]), 10);
	/* rounding of the geometry (x+w a hair past the neighbour's x) */
	assert.equal(v.matchedSum([{ x: 10, w: 50.00000001, count: 1 }, { x: 60, w: 5, count: 2 }]), 3);
	assert.equal(v.matchedSum([]), 0);
});

test('matchedText and formatMatched', () => {
	assert.equal(v.matchedText(12.345, null), 'Matched: 12.3%');
	assert.equal(v.matchedText(100, null), 'Matched: 100%');
	assert.equal(v.matchedText(5, 100), 'Matched: 5.0% of all, 100% of zoomed');
	assert.equal(v.formatMatched(99.96), '100.0');
});

test('compileSearch reports an invalid pattern instead of throwing', () => {
	assert.ok(v.compileSearch('^foo', false).re.test('foobar'));
	assert.equal(v.compileSearch('FOO', false).re.test('foo'), false);
	assert.ok(v.compileSearch('FOO', true).re.test('foo'));
	const bad = v.compileSearch('(', false);
	assert.equal(bad.re, null);
	assert.match(bad.error, /./);
});

test('exactSearch matches only the exact text', () => {
	const names = ['ns::f(int) [clone .isra.0]', 'a.b*c+d?', '^$|\\', 'plain'];
	for (const n of names) {
		const re = new RegExp(v.exactSearch(n));
		assert.ok(re.test(n), n);
		assert.equal(re.test(n + 'x'), false, n + 'x');
		assert.equal(re.test('x' + n), false, 'x' + n);
	}
	assert.equal(new RegExp(v.exactSearch('a.b')).test('axb'), false);
});

test('URL parameters parse, update and round-trip', () => {
	assert.deepEqual(v.parseParams(''), []);
	assert.deepEqual(v.parseParams('?x=10.0&y=53&s=%5Efoo&i=1'), [['x', '10.0'], ['y', '53'], ['s', '^foo'], ['i', '1']]);
	assert.deepEqual(v.parseParams('?s=a+b&flag&bad=%E0%A4%A'), [['s', 'a b'], ['flag', ''], ['bad', '%E0%A4%A']]);
	assert.equal(v.getParam(v.parseParams('?s=1&s=2'), 's'), '2');
	assert.equal(v.getParam(v.parseParams('?a=1'), 's'), null);
	assert.equal(v.updateQuery('', { x: '10.0', y: '53' }), '?x=10.0&y=53');
	assert.equal(v.updateQuery('?keep=1&x=3&y=4', { x: null, y: null }), '?keep=1');
	assert.equal(v.updateQuery('?x=3&keep=1', { x: '5' }), '?x=5&keep=1');
	assert.equal(v.updateQuery('?s=a', { s: null }), '');
	const hostile = 'a&b=c ;<>"\'%+#?';
	const q = v.updateQuery('', { s: hostile });
	assert.equal(v.getParam(v.parseParams(q), 's'), hostile);
	assert.equal(q.indexOf('#'), -1);
});

test('zoomLayout: ancestors stretched, subtree rescaled, the rest hidden', () => {
	const W = 1200, pad = 10;
	/* normal layout: the root row has the largest y */
	const target = { x: 305, w: 590, y: 53 };
	assert.deepEqual(v.zoomLayout({ x: 10, w: 1180, y: 69 }, target, W, pad, false), { kind: 'parent', x: 10, w: 1180 });
	assert.equal(v.zoomLayout({ x: 10, w: 200, y: 69 }, target, W, pad, false).kind, 'hidden');
	assert.deepEqual(v.zoomLayout(target, target, W, pad, false), { kind: 'shown', x: 10, w: 1180 });
	const child = v.zoomLayout({ x: 600, w: 295, y: 37 }, target, W, pad, false);
	assert.equal(child.kind, 'shown');
	assert.ok(Math.abs(child.x - 600) < 1e-9 && Math.abs(child.w - 590) < 1e-9);
	assert.equal(v.zoomLayout({ x: 10, w: 295, y: 53 }, target, W, pad, false).kind, 'hidden');
	assert.equal(v.zoomLayout({ x: 895, w: 100, y: 37 }, target, W, pad, false).kind, 'hidden');
	/* inverted: the root row has the smallest y */
	assert.equal(v.zoomLayout({ x: 10, w: 1180, y: 36 }, { x: 305, w: 590, y: 52 }, W, pad, true).kind, 'parent');
	assert.equal(v.zoomLayout({ x: 305, w: 100, y: 68 }, { x: 305, w: 590, y: 52 }, W, pad, true).kind, 'shown');
	assert.equal(v.zoomLayout({ x: 305, w: 100, y: 68 }, { x: 305, w: 590, y: 52 }, W, pad, false).kind, 'hidden');
});

test('fitLabel keeps what fits, cuts head or tail with ..', () => {
	const m = (s) => s.length * 10; /* 10 px per character */
	assert.equal(v.fitLabel('function', 80, m, 14, true), 'function');
	assert.equal(v.fitLabel('function', 79, m, 14, true), 'funct..');
	assert.equal(v.fitLabel('function', 79, m, 14, false), '..ction');
	assert.equal(v.fitLabel('function', 30, m, 14, true), 'f..');
	assert.equal(v.fitLabel('function', 29, m, 14, true), '');
	assert.equal(v.fitLabel('function', 13, m, 14, true), '');
	assert.equal(v.fitLabel('', 100, m, 14, true), '');
	/* never splits a surrogate pair */
	const cm = (s) => [...s].length * 10;
	assert.equal(v.fitLabel('\u{1F525}\u{1F525}\u{1F525}\u{1F525}', 39, cm, 14, true), '\u{1F525}..');
	assert.deepEqual(v.codePoints('a\u{1F525}b'), ['a', '\u{1F525}', 'b']);
	assert.deepEqual(v.codePoints('\ud800x'), ['\ud800', 'x']);
});

test('fmtNum writes short numbers', () => {
	assert.equal(v.fmtNum(10), '10');
	assert.equal(v.fmtNum(1180.0000001), '1180');
	assert.equal(v.fmtNum(12.345), '12.35');
	assert.equal(v.fmtNum(-0.001), '0');
});
