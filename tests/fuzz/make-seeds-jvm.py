#!/usr/bin/python3
# Seeds for tests/fuzz/fuzz_jvm.c: a JVM's memory as the target lays it
# out (a 15-byte header, then bytes at BASE), built here with OpenJDK
# 17.0.15's layout (what its gHotSpotVMStructs/Types tables give on
# Debian 12, doc/runtimes.md): the two tables with the fields scorch
# reads, a template interpreter's StubQueue, and one Method with its
# ConstMethod, ConstantPool, tags, holder class, methods array and
# Symbols. Variants break one link each (a holder that does not list
# the method, a slot not tagged Utf8, a bad signature, a table without
# a field scorch needs, a truncated copy). Run from the top directory.
import os, struct

BASE = 0x10000000
CORPUS = "tests/fuzz/corpus/jvm"
FIELDS = [  # type, field, offset (or, static: address filled in), static
    ("Method", "_constMethod", 8), ("ConstMethod", "_constants", 8),
    ("ConstMethod", "_name_index", 34), ("ConstMethod", "_signature_index", 36),
    ("ConstMethod", "_method_idnum", 38), ("ConstantPool", "_pool_holder", 24),
    ("ConstantPool", "_length", 60), ("ConstantPool", "_tags", 8), ("Klass", "_name", 24),
    ("InstanceKlass", "_methods", 408), ("Array<int>", "_length", 0), ("Array<u1>", "_data", 4),
    ("Array<Method*>", "_data", 8), ("Symbol", "_length", 4), ("Symbol", "_body", 6),
    ("StubQueue", "_stub_buffer", 8), ("StubQueue", "_buffer_limit", 20),
    ("Symbol", "_hash_and_refcount", 0),  # one scorch does not need
]
TYPES = [("ConstantPool", 72), ("Method", 88), ("Symbol", 8)]


class Mem:
    def __init__(self):
        self.b = bytearray(0x3000)

    def put(self, at, data):
        self.b[at:at + len(data)] = data
        return BASE + at


def build(variant):
    m = Mem()
    strings, at = {}, 0x2000
    for s in sorted({t for t, *_ in FIELDS} | {f for _, f, *_ in FIELDS} | {t for t, _ in TYPES} |
                    {"AbstractInterpreter", "_code"}):
        strings[s] = m.put(at, s.encode() + b"\0")
        at += len(s) + 1
    # the interpreter: AbstractInterpreter::_code (at 0x1f00) -> StubQueue (0x1f40)
    m.put(0x1f00, struct.pack("<Q", BASE + 0x1f40))
    m.put(0x1f40 + 8, struct.pack("<Q", 0x7f0000000000))
    m.put(0x1f40 + 20, struct.pack("<i", 0x40000))
    entries = [(t, f, off, 0, 0) for t, f, off in FIELDS if variant != "missing-field" or f != "_method_idnum"] + [("AbstractInterpreter", "_code", 0, 1, BASE + 0x1f00)]
    structs = 0x100
    for i, (t, f, off, st, addr) in enumerate(entries):
        e = struct.pack("<QQQiiQQ", strings[t], strings[f], 0, st, 0, off, addr)
        m.put(structs + 48 * i, e)
    types = 0x100 + 48 * 120
    for i, (t, size) in enumerate(TYPES):
        m.put(types + 40 * i, struct.pack("<QQiiiiQ", strings[t], 0, 0, 0, 0, 0, size))
    # the method: Method 0x1800, ConstMethod 0x1860, ConstantPool 0x18a0 (5 slots),
    # tags 0x1900, Klass 0x1940 (its _methods at +408), methods 0x1b00, Symbols 0x1b40...
    method, cm, cp, tags, klass, methods = 0x1800, 0x1860, 0x18a0, 0x1900, 0x1940, 0x1b00
    m.put(method + 8, struct.pack("<Q", BASE + cm))
    m.put(cm + 8, struct.pack("<Q", BASE + cp))
    sig = b"(Ljava/lang/String;[[IJ)V" if variant != "bad-signature" else b"(Ljava/lang/String[[IJ)V"
    m.put(cm + 34, struct.pack("<HHH", 1, 2, 1))
    m.put(cp + 24, struct.pack("<Q", BASE + klass))
    m.put(cp + 60, struct.pack("<i", 5))
    m.put(cp + 8, struct.pack("<Q", BASE + tags))
    m.put(tags, struct.pack("<i", 5) + bytes([0, 1, 1 if variant != "bad-tag" else 7, 7, 1]))
    sym_at = 0x1b40
    syms = []
    for text in (b"run", sig, b"Phases$Alpha"):
        syms.append(BASE + sym_at)
        m.put(sym_at, struct.pack("<IH", 1, len(text)) + text)
        sym_at += (6 + len(text) + 7) // 8 * 8
    m.put(cp + 72 + 8, struct.pack("<QQ", syms[0], syms[1]))
    m.put(klass + 24, struct.pack("<Q", syms[2]))
    m.put(klass + 408, struct.pack("<Q", BASE + methods))
    listed = [BASE + 0x1700, BASE + method] if variant != "not-listed" else [BASE + 0x1700, BASE + 0x1710]
    m.put(methods, struct.pack("<i", 2) + b"\0" * 4 + struct.pack("<QQ", *listed))
    header = struct.pack("<HH", structs, types) + bytes([0, 8, 24, 32, 40, 48, 0, 32, 40]) + struct.pack("<H", method)
    data = header + bytes(m.b)
    if variant == "truncated":
        data = data[:len(data) // 2]
    return data


os.makedirs(CORPUS, exist_ok=True)
for v in ("jdk17", "missing-field", "bad-signature", "bad-tag", "not-listed", "truncated"):
    with open(os.path.join(CORPUS, v), "wb") as f:
        f.write(build(v))
