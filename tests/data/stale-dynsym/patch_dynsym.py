#!/usr/bin/env python3
"""patch_dynsym.py FILE NAME SHNDX: set the .dynsym entry NAME's st_shndx
(ELF64 little-endian), as a BOLT-rewritten file's stale index."""
import struct, sys
path, name, shndx = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
b = bytearray(open(path, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
secs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize) for i in range(shnum)]
dyn = [s for s in secs if s[1] == 11][0]           # SHT_DYNSYM
strtab = secs[dyn[6]]                                # sh_link
for off in range(dyn[4], dyn[4] + dyn[5], 24):
    st_name, = struct.unpack_from('<I', b, off)
    end = b.index(0, strtab[4] + st_name)
    if bytes(b[strtab[4] + st_name:end]) == name:
        struct.pack_into('<H', b, off + 6, shndx)
        open(path, 'wb').write(b)
        sys.exit(0)
sys.exit('no .dynsym entry ' + name.decode())
