#!/usr/bin/python3
# Seeds for the ELF, DWARF, unwinder, demangler, Python-walk and procmaps
# fuzz targets (tests/fuzz/fuzz_elf.c, fuzz_dwarf.c, fuzz_unwind.c,
# fuzz_demangle.c, fuzz_python_walk.c, fuzz_procmaps.c),
# from real files of a Debian machine: small
# binaries and objects as they are installed, this process's vdso, a
# program gcc builds with inlining and DWARF, and cut-down copies of them
# (truncated, sections stripped by objcopy), and symbol names as binaries
# hold them (C++ from libstdc++ and libLLVM, Rust v0 and legacy from a
# rustup toolchain's libraries, when there is one). Run from the top directory;
# the committed corpus came from Debian 12 (gcc 12, glibc 2.36). Seeds that
# fuzzing later found crashing are added by hand, named crash-*.
import os, random, shutil, struct, subprocess, sys, tempfile

CORPUS = "tests/fuzz/corpus"
SYSTEM = [
    "/usr/lib/x86_64-linux-gnu/Scrt1.o",            # relocatable, .symtab, .eh_frame
    "/usr/lib/x86_64-linux-gnu/crti.o",
    "/usr/lib/x86_64-linux-gnu/libxshmfence.so.1.0.0",  # shared object, .dynsym, PLT
    "/usr/lib/llvm-14/bin/count",                   # executable
    "/usr/lib/python3.11/config-3.11-x86_64-linux-gnu/python.o",  # with debug_info
    "/usr/lib/perf-core/perf-read-vdso32",          # 32-bit i386
]
PROGRAM = r"""
static int depth;
static inline __attribute__((always_inline)) int leaf(int x) { depth++; return x * 3 + depth; }
static inline __attribute__((always_inline)) int mid(int x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) int work(int x) { return mid(x) ^ mid(x * 2); }
struct S { int v; int get() const; };
int S::get() const { return work(v); }
int main(int argc, char **argv) { (void)argv; S s{argc}; return s.get() & 1; }
"""


def vdso():
    with open("/proc/self/maps") as m:
        for line in m:
            if line.rstrip().endswith("[vdso]"):
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                with open("/proc/self/mem", "rb") as mem:
                    mem.seek(lo)
                    return mem.read(hi - lo)
    return None


def symbols(path):
    """(address, size) of the defined functions nm lists."""
    out = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            syms.append((int(f[0], 16), int(f[1], 16)))
    return syms


def text_offset(path):
    """sh_addr - sh_offset of .text (file offset = address - this)."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 5 and f[1] == ".text":
            return int(f[3], 16) - int(f[4], 16)
    return 0


def write(dir, name, data):
    os.makedirs(f"{CORPUS}/{dir}", exist_ok=True)
    with open(f"{CORPUS}/{dir}/{name}", "wb") as f:
        f.write(data)


def dynamic_names(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True).stdout
    return [line.split()[-1].split("@")[0] for line in out.splitlines() if line.split()]


def demangle_seeds():
    """A few names of each kind: the longest C++ ones, Rust v0 (_R) and
    legacy (_ZN...17h<hash>E) ones."""
    import glob
    picks = []
    for lib in ("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"):
        if os.path.exists(lib):
            names = sorted((n for n in dynamic_names(lib) if n.startswith("_Z")), key=len)
            picks += [("cxx-" + os.path.basename(lib).split(".")[0] + "-%d" % i, n)
                      for i, n in enumerate(names[:2] + names[len(names) // 2:len(names) // 2 + 2] + names[-2:])]
    for lib in sorted(glob.glob(os.path.expanduser("~/.rustup/toolchains/*/lib/librustc_driver-*.so")))[:1]:
        names = dynamic_names(lib)
        v0 = sorted((n for n in names if n.startswith("_R")), key=len)
        legacy = sorted((n for n in names if n.startswith("_ZN") and "17h" in n and n.endswith("E")), key=len)
        picks += [("rust-v0-%d" % i, n) for i, n in enumerate(v0[:1] + v0[len(v0) // 2:len(v0) // 2 + 2] + v0[-1:])]
        picks += [("rust-legacy-%d" % i, n) for i, n in enumerate(legacy[:1] + legacy[-1:])]
    for name, n in picks:
        write("demangle", name, n.encode())


# CPython layouts the walk reads (src/runtime/python_layouts.c), for the
# python_walk seeds: one thread's chain of structures, as a 3.11, 3.12 or
# 3.13 process holds them, laid out in a 64 KiB image of its memory.
PY = {
    "3.11": dict(pick=3, rt_interp=40, interp_threads=16, ts_next=8, ts_native=160, ts_frame=56, cf_cur=8,
                 fr_prev=48, fr_code=32, fr_instr=56, fr_entry=68, fr_owner=69, co_file=112, co_name=120,
                 co_qual=128, co_table=136, co_first=72, co_adaptive=184, u_len=16, u_state=32, u_ascii=48),
    "3.12": dict(pick=4, rt_interp=40, interp_threads=72, ts_next=8, ts_native=144, ts_frame=56, cf_cur=0,
                 fr_prev=8, fr_code=0, fr_instr=56, fr_entry=None, fr_owner=70, co_file=112, co_name=120,
                 co_qual=128, co_table=136, co_first=68, co_adaptive=192, u_len=16, u_state=32, u_ascii=40),
    "3.13-debug": dict(pick=6, rt_interp=632, interp_threads=7344, ts_next=8, ts_native=160, ts_frame=72, cf_cur=None,
                       fr_prev=8, fr_code=0, fr_instr=56, fr_entry=None, fr_owner=70, co_file=112, co_name=120,
                       co_qual=128, co_table=136, co_first=68, co_adaptive=200, u_len=16, u_state=32, u_ascii=40),
}


def python_walk_seeds():
    BASE, TID = 0x200000000000, 4242
    for name, o in PY.items():
        m = bytearray(1 << 16)
        put = lambda at, fmt, v: struct.pack_into("<" + fmt, m, at, v)
        runtime, interp, tstate, cframe, code = 0x100, 0x200, 0x2100, 0x2300, 0x2800
        frames = [0x2400, 0x2500]
        put(runtime + o["rt_interp"], "Q", BASE + interp)
        put(interp + o["interp_threads"], "Q", BASE + tstate)
        put(tstate + o["ts_native"], "Q", TID)
        if o["cf_cur"] is None:
            put(tstate + o["ts_frame"], "Q", BASE + frames[0])
        else:
            put(tstate + o["ts_frame"], "Q", BASE + cframe)
            put(cframe + o["cf_cur"], "Q", BASE + frames[0])
        for i, f in enumerate(frames):
            put(f + o["fr_prev"], "Q", BASE + frames[i + 1] if i + 1 < len(frames) else 0)
            put(f + o["fr_code"], "Q", BASE + code)
            put(f + o["fr_instr"], "Q", BASE + code + o["co_adaptive"] + 2 * (3 + i))
            if o["fr_entry"] is not None:
                put(f + o["fr_entry"], "B", 1 if i == len(frames) - 1 else 0)
        strs = {"co_file": (0x3000, b"/usr/lib/python3/app/handlers.py"), "co_name": (0x3100, b"handle"),
                "co_qual": (0x3200, b"Server.handle")}
        for field, (at, text) in strs.items():
            put(code + o[field], "Q", BASE + at)
            put(at + o["u_len"], "q", len(text))
            put(at + o["u_state"], "I", 1 << 2 | 1 << 5 | 1 << 6)  # kind 1, compact, ascii
            m[at + o["u_ascii"]:at + o["u_ascii"] + len(text)] = text
        table = open(f"{CORPUS}/python/11-linetable-put", "rb").read()[5:]
        put(code + o["co_table"], "Q", BASE + 0x3400)
        put(0x3400 + 16, "q", len(table))
        m[0x3400 + 32:0x3400 + 32 + len(table)] = table
        put(code + o["co_first"], "i", 10)
        if name == "3.13-debug":
            words = [0] * 71
            words[0] = struct.unpack("<Q", b"xdebugpy")[0]
            words[1] = 0x030d00f0
            for w, k in ((5, "rt_interp"), (9, "interp_threads"), (21, "ts_next"), (23, "ts_frame"),
                         (25, "ts_native"), (29, "fr_prev"), (30, "fr_code"), (31, "fr_instr"),
                         (33, "fr_owner"), (35, "co_file"), (36, "co_name"), (37, "co_qual"),
                         (38, "co_table"), (39, "co_first"), (43, "co_adaptive"), (68, "u_state"),
                         (69, "u_len"), (70, "u_ascii")):
                words[w] = o[k]
            words[65], words[66] = 16, 32
            struct.pack_into("<71Q", m, 0x1000, *words)
        end = max(i for i, b in enumerate(m) if b) + 1
        write("python_walk", name, bytes([o["pick"]]) + struct.pack("<IH", TID, runtime) + bytes(m[:end]))


def procmaps_seeds():
    """Operations on pids 1..8 (read, fork, add, exec, forget, lookups),
    then a real /proc/PID/maps: cat's own, and a python3's with a deleted
    file and a path with spaces mapped."""
    ops = bytes([4, 0, 0, 0, 0, 0,      # read pid 1's maps
                 1, 0, 1, 0, 0, 0,      # fork 1 -> 2
                 0, 1, 0x10, 0, 3, 1,   # pid 2: add a mapping at 0x10000
                 6, 1, 0x10, 0, 0, 4,   # lookup in it
                 2, 1, 0, 0, 0, 0,      # exec 2
                 4, 1, 0, 0, 0, 0,      # read 2's maps
                 3, 0, 0, 0, 0, 0,      # forget 1
                 5, 1, 0, 0, 0, 0])     # reread 2
    cat = subprocess.run(["cat", "/proc/self/maps"], capture_output=True).stdout
    write("procmaps", "cat", b"\x01" + ops + b"--\n" + cat)
    tmp = tempfile.mkdtemp()
    odd = os.path.join(tmp, "a lib with spaces.so")
    shutil.copy("/usr/lib/x86_64-linux-gnu/libxshmfence.so.1.0.0", odd)
    gone = os.path.join(tmp, "gone.so")
    shutil.copy("/usr/lib/x86_64-linux-gnu/libxshmfence.so.1.0.0", gone)
    code = ("import ctypes, os, sys; a = ctypes.CDLL(sys.argv[1]); b = ctypes.CDLL(sys.argv[2]); "
            "os.unlink(sys.argv[2]); sys.stdout.buffer.write(open('/proc/self/maps', 'rb').read())")
    py = subprocess.run(["python3", "-c", code, odd, gone], capture_output=True).stdout
    shutil.rmtree(tmp)
    write("procmaps", "python3-deleted-spaces", b"\x00" + ops + b"--\n" + py)


def main():
    rng = random.Random(30)
    demangle_seeds()
    procmaps_seeds()
    python_walk_seeds()
    tmp = tempfile.mkdtemp()
    prog = f"{tmp}/inlined"
    with open(prog + ".cc", "w") as f:
        f.write(PROGRAM)
    subprocess.run(["g++", "-O2", "-g", "-o", prog, prog + ".cc"], check=True)
    files = {os.path.basename(p): p for p in SYSTEM if os.path.exists(p)}
    files["inlined"] = prog
    stripped = f"{tmp}/inlined-nodebug"
    subprocess.run(["objcopy", "--strip-debug", prog, stripped], check=True)
    files["inlined-nodebug"] = stripped
    dyn = f"{tmp}/xshmfence-stripped"
    if "libxshmfence.so.1.0.0" in files:
        subprocess.run(["objcopy", "--strip-all", "--remove-section=.gnu_debuglink",
                        files["libxshmfence.so.1.0.0"], dyn], check=True)
        files["xshmfence-stripped"] = dyn
    images = {name: open(p, "rb").read() for name, p in files.items()}
    v = vdso()
    if v:
        images["vdso"] = v
    for name, data in images.items():
        write("elf", name, data)
    # cut short: headers that point past the end
    for name in ("libxshmfence.so.1.0.0", "inlined"):
        if name in images:
            write("elf", name + "-cut", images[name][: len(images[name]) // 3])

    for name in ("inlined", "python.o", "Scrt1.o"):
        if name not in files:
            continue
        syms = symbols(files[name])[:4]
        addrs = [a + s // 2 for a, s in syms] + [0] * 4
        write("dwarf", name, struct.pack("<4I", *addrs[:4]) + images[name])

    # unwind: a pc inside a function of the image, registers pointing into
    # a stack copy of words that look like its own return addresses
    for name in ("inlined", "libxshmfence.so.1.0.0", "vdso"):
        if name not in images:
            continue
        data = images[name]
        path = files.get(name)
        syms = symbols(path) if path else []
        off = text_offset(path) if path else 0
        pc = (syms[0][0] - off + 4) if syms else 0x400
        mask = 0xff01ff  # ax..ip, r8..r15 (perf order)
        deltas = [64] * 24
        deltas[6] = 16   # rbp
        deltas[7] = 0    # rsp
        header = struct.pack("<4I", len(data), pc << 1, 0, mask) + struct.pack("<24H", *deltas)
        words = [0x400000 + rng.randrange(len(data)) for _ in range(64)]
        stack = struct.pack("<64Q", *words)
        write("unwind", name, header + data + stack)
    shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
