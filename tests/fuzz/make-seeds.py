#!/usr/bin/python3
# Seeds for the ELF, DWARF and unwinder fuzz targets (tests/fuzz/fuzz_elf.c,
# fuzz_dwarf.c, fuzz_unwind.c), from real files of a Debian machine: small
# binaries and objects as they are installed, this process's vdso, a
# program gcc builds with inlining and DWARF, and cut-down copies of them
# (truncated, sections stripped by objcopy). Run from the top directory;
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


def main():
    rng = random.Random(30)
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
