'use strict';
/*
 * A small harness for the browser tests: one headless Debian chromium
 * (driven by playwright-core, never a downloaded browser) with a fresh
 * profile, a new page per test, TAP lines in the project's format, and on
 * every page a check for console errors, page errors and unexpected dialogs.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
	'--disable-background-networking', '--disable-component-update', '--disable-sync'];

function tapName(s) {
	return s.replace(/[\r\n]+/g, ' ');
}

class Failure extends Error {}

/* What a test gets: the page and the checks that fail the test. */
class Context {
	constructor(page) {
		this.page = page;
		this.errors = [];
		this.dialogs = [];
		this.answers = [];
		page.on('console', (m) => {
			if (m.type() === 'error' || m.type() === 'assert') this.errors.push('console ' + m.type() + ': ' + m.text());
		});
		page.on('pageerror', (e) => this.errors.push('page error: ' + (e && e.message)));
		page.on('dialog', async (d) => {
			this.dialogs.push({ type: d.type(), message: d.message(), defaultValue: d.defaultValue() });
			const a = this.answers.shift();
			try {
				if (a === undefined) {
					this.errors.push(`unexpected ${d.type()} dialog: ${d.message()}`);
					await d.dismiss();
				} else if (a === null) {
					await d.dismiss();
				} else {
					await d.accept(a);
				}
			} catch (e) {
				this.errors.push('dialog handling: ' + e.message);
			}
		});
	}

	/* The next prompt is answered with text (null: cancelled). */
	answerPrompt(text) {
		this.answers.push(text);
	}

	check(cond, msg) {
		if (!cond) throw new Failure(msg);
	}

	equal(got, want, msg) {
		if (got !== want)
			throw new Failure(`${msg}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
	}

	near(got, want, tol, msg) {
		if (!(Math.abs(got - want) <= tol))
			throw new Failure(`${msg}: got ${got}, expected ${want} (+-${tol})`);
	}

	/* Multisets of strings compared after sorting. */
	sameSet(got, want, msg) {
		const a = [...got].sort(), b = [...want].sort();
		if (JSON.stringify(a) !== JSON.stringify(b))
			throw new Failure(`${msg}:\n got      ${JSON.stringify(a)}\n expected ${JSON.stringify(b)}`);
	}
}

/*
 * Chromium binds its profile's singleton socket at
 * $TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket and aborts at launch
 * ("Socket path too long") when that exceeds a unix socket path (108 bytes
 * with the NUL). So chromium gets a private temporary folder with a short
 * name: in TMPDIR when that leaves room, else in /tmp or /dev/shm.
 */
const SOCKET_PATH_MAX = 107;
const SOCKET_SUFFIX = '/chromium-XXXXXX/org.chromium.Chromium.XXXXXX/SingletonSocket';

function shortTmpdir() {
	const bases = [process.env.TMPDIR || os.tmpdir(), '/tmp', '/dev/shm'];
	for (const base of bases) {
		if (base.length + SOCKET_SUFFIX.length > SOCKET_PATH_MAX) continue;
		try {
			return fs.mkdtempSync(path.join(base, 'chromium-'));
		} catch (e) {
			/* not writable: try the next */
		}
	}
	throw new Error(`no writable temporary folder short enough for chromium's socket among ${bases.join(', ')}`);
}

async function launch(chromium) {
	const profile = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'chromium-profile-'));
	const tmp = shortTmpdir();
	const cleanup = () => {
		fs.rmSync(profile, { recursive: true, force: true });
		fs.rmSync(tmp, { recursive: true, force: true });
	};
	let ctx;
	try {
		ctx = await chromium.launchPersistentContext(profile, {
			executablePath: CHROMIUM,
			headless: true,
			args: ARGS,
			env: { ...process.env, TMPDIR: tmp },
			viewport: { width: 1280, height: 800 },
			timeout: 30000
		});
	} catch (e) {
		cleanup();
		throw e;
	}
	return {
		ctx,
		async close() {
			await ctx.close().catch(() => {});
			cleanup();
		}
	};
}

/* Run tests [{name, fn(ctx)}]; prints TAP; returns the number failed. */
async function runAll(tests, opts = {}) {
	const { chromium } = require('playwright-core');
	let browser, failed = 0;
	try {
		browser = await launch(chromium);
	} catch (e) {
		console.log('not ok - browser/launch chromium');
		console.log(String(e.message).split('\n').slice(0, 6).map((l) => '#   ' + l).join('\n'));
		return 1;
	}
	for (const t of tests) {
		if (t.skip) {
			console.log(`ok - browser/${tapName(t.name)} # SKIP ${tapName(t.skip)}`);
			continue;
		}
		const page = await browser.ctx.newPage();
		page.setDefaultTimeout(opts.timeout || 10000);
		const c = new Context(page);
		let err = null;
		try {
			await t.fn(c);
			/* let late errors (timers, handlers) arrive */
			await page.waitForTimeout(50);
		} catch (e) {
			err = e;
		}
		if (!err && c.errors.length) err = new Failure('errors on the page:\n' + c.errors.join('\n'));
		else if (err && c.errors.length) err.message += '\nerrors on the page:\n' + c.errors.join('\n');
		if (err) {
			failed++;
			console.log(`not ok - browser/${tapName(t.name)}`);
			const text = (err instanceof Failure ? err.message : String(err.stack || err)).replace(/\x1b\[[0-9;]*m/g, '');
			console.log(text.split('\n').slice(0, 16).map((l) => '#   ' + l).join('\n'));
		} else {
			console.log(`ok - browser/${tapName(t.name)}`);
		}
		await page.close().catch(() => {});
	}
	await browser.close();
	return failed;
}

module.exports = { runAll, Failure };
