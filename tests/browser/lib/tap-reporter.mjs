// node --test reporter printing the project's TAP lines:
//   ok - browser/unit/NAME | not ok - browser/unit/NAME | ok - ... # SKIP why
// Nested tests are named "parent > child"; suites themselves print nothing.
const names = [];

function line(s) {
	return s.replace(/[\r\n]+/g, ' ');
}

export default async function* tapReporter(source) {
	for await (const ev of source) {
		const d = ev.data || {};
		if (ev.type === 'test:start') {
			names[d.nesting] = d.name;
			names.length = d.nesting + 1;
			continue;
		}
		if (ev.type !== 'test:pass' && ev.type !== 'test:fail') continue;
		names[d.nesting] = d.name;
		if (d.details && d.details.type === 'suite' && ev.type === 'test:pass') continue;
		// a file that failed to load is reported under its path: keep the base name
		const parts = names.slice(0, d.nesting + 1).map((n) => (d.nesting === 0 && n.includes('/') ? n.replace(/.*\//, '') : n));
		const name = 'browser/unit/' + line(parts.join(' > '));
		if (ev.type === 'test:pass') {
			if (d.skip !== undefined && d.skip !== false) yield `ok - ${name} # SKIP ${line(String(d.skip === true ? 'skipped' : d.skip))}\n`;
			else if (d.todo !== undefined && d.todo !== false) yield `ok - ${name} # SKIP todo ${line(String(d.todo))}\n`;
			else yield `ok - ${name}\n`;
		} else {
			const err = d.details && d.details.error;
			const cause = err && (err.cause || err);
			const msg = String((cause && (cause.stack || cause.message)) || err || 'failed');
			yield `not ok - ${name}\n` + msg.split('\n').slice(0, 6).map((l) => `#   ${l}\n`).join('');
		}
	}
}
