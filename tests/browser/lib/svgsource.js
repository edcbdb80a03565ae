'use strict';
/*
 * Where the test SVGs come from: `$SCORCH flamegraph` on small folded
 * inputs. With VIEWER_JS=FILE (or VIEWER_FIXTURE=1) they come instead from
 * the hand-built fixture, which embeds that copy of the viewer: a way to
 * check that the tests catch a broken viewer without rebuilding scorch.
 * The choice is printed as a TAP comment.
 */
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { buildSvg } = require('./fixture');

function probeBinary(scorch, dir) {
	if (!scorch || !fs.existsSync(scorch)) return `no scorch binary at ${scorch || '$SCORCH'}`;
	const f = path.join(dir, 'probe.folded');
	fs.writeFileSync(f, 'a;b 1\na;c 2\n');
	const r = spawnSync(scorch, ['flamegraph', f], { encoding: 'utf8', timeout: 20000 });
	if (r.status !== 0) return `${scorch} flamegraph exits ${r.status}: ${String(r.stderr).trim().split('\n')[0]}`;
	if (!/<g id="frames">/.test(r.stdout) || !/scorchConfig/.test(r.stdout) || !/init\(evt\)/.test(r.stdout))
		return `${scorch} flamegraph output has no frames group, scorchConfig or init(evt)`;
	return null;
}

class SvgSource {
	constructor(dir) {
		this.dir = dir;
		this.scorch = process.env.SCORCH;
		if (process.env.VIEWER_JS || process.env.VIEWER_FIXTURE) {
			this.why = 'VIEWER_JS or VIEWER_FIXTURE set';
			this.broken = null;
		} else {
			this.why = null;
			this.broken = probeBinary(this.scorch, dir); /* every test fails with this */
		}
		this.real = this.why === null;
		this.n = 0;
	}

	describe() {
		return this.real ? `SVGs drawn by ${this.scorch} flamegraph` : `SVGs from the hand-built fixture (${this.why})`;
	}

	/* Write folded text, draw it with args, return the SVG's path. */
	make(name, folded, args = []) {
		const base = path.join(this.dir, `${name}-${++this.n}`);
		fs.writeFileSync(base + '.folded', folded);
		let svg;
		if (this.real) {
			if (this.broken) throw new Error(this.broken);
			const r = spawnSync(this.scorch, ['flamegraph', ...args, base + '.folded'], {
				encoding: 'buffer', timeout: 20000, maxBuffer: 64 << 20
			});
			if (r.status !== 0)
				throw new Error(`scorch flamegraph ${args.join(' ')} exited ${r.status}: ${String(r.stderr)}`);
			svg = r.stdout;
		} else {
			const opts = {};
			for (const a of args) {
				if (a === '--inverted') opts.inverted = true;
				else if (a === '--truncate-text-right') opts.truncateLeft = false;
				else if (a === '--truncate-text-left') opts.truncateLeft = true;
				else throw new Error(`the fixture does not support ${a}`);
			}
			svg = buildSvg(folded, opts);
		}
		fs.writeFileSync(base + '.svg', svg);
		return base + '.svg';
	}

	/* Whether the SVG source understands an option. */
	supports(arg) {
		return this.real || ['--inverted', '--truncate-text-right', '--truncate-text-left'].includes(arg);
	}
}

module.exports = { SvgSource };
