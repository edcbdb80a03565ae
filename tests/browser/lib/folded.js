'use strict';
/*
 * A small model of folded stacks ("a;b;c 12"), used by the browser tests to
 * compute what the viewer should show, independently of the viewer and of
 * the renderer: totals, the count of a frame (a stack prefix), which frames
 * a search matches and the matched share with nested matches counted once.
 */

function parseFolded(text) {
	const lines = [];
	for (const line of text.split('\n')) {
		const m = /^(.*)\s+?(\d+(?:\.\d*)?)$/.exec(line);
		if (!m) continue;
		lines.push({ stack: m[1].split(';'), count: parseFloat(m[2]) });
	}
	return lines;
}

function total(lines) {
	return lines.reduce((s, l) => s + l.count, 0);
}

function hasPrefix(stack, prefix) {
	if (prefix.length > stack.length) return false;
	for (let i = 0; i < prefix.length; i++) if (stack[i] !== prefix[i]) return false;
	return true;
}

/* Samples whose stack starts with prefix: the width of that frame. */
function countOf(lines, prefix) {
	return lines.filter((l) => hasPrefix(l.stack, prefix)).reduce((s, l) => s + l.count, 0);
}

/* Every frame, as its path from the root (without the "all" root). */
function framePaths(lines) {
	const seen = new Map();
	for (const l of lines)
		for (let d = 1; d <= l.stack.length; d++) {
			const p = l.stack.slice(0, d);
			seen.set(p.join('\u0000'), p);
		}
	return [...seen.values()];
}

/* Samples under at least one frame whose name matches re, among the stacks
 * starting with prefix (all stacks when prefix is empty). */
function matchedCount(lines, re, prefix = []) {
	return lines
		.filter((l) => hasPrefix(l.stack, prefix) && l.stack.some((f) => re.test(f)))
		.reduce((s, l) => s + l.count, 0);
}

module.exports = { parseFolded, total, countOf, framePaths, matchedCount, hasPrefix };
