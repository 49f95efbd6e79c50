"""The device runtime library: functions CUDA's driver links into every module that calls them.

A kernel compiled by nvcc or numba-cuda calls `vprintf` (printf) and `malloc`/`free` as external
functions, which the driver resolves from its own device library. gpusim links its own definitions,
written in PTX, so they run on the simulated machine like any other code (their instructions are
counted and timed). `link` appends the ones a module declares and does not define.

printf works as on the GPU: `vprintf(fmt, args)` walks the format string to size the argument buffer,
reserves a record in a FIFO in global memory (1 MiB, cudaLimitPrintfFifoSize's default) with one
atomic, and copies the format pointer and the arguments there; the host formats the records after
the kernel (`printf_records`), in the order the threads reserved them. Records that do not fit are
dropped, as the hardware drops them; gpusim says how many were lost. A `*` width or precision is
not sized (CUDA's own printf does not take it either).

malloc/free: CUDA's device heap, 8 MiB by default (cudaLimitMallocHeapSize), as a bump allocator:
malloc atomically advances the top of the heap and returns NULL when it is full; free gives nothing
back.
"""
from __future__ import annotations

import re
import struct

from gpusim.isa.spaces import CONST_WINDOW, GLOBAL_BASE, WINDOW_SIZE

FIFO_BYTES = 1 << 20
HEAP_BYTES = 8 << 20
RECORD_HEADER = 16          # u32 record bytes, u32 argument bytes, u64 format address

# Per ASCII character inside a conversion: 0 a flag, width, precision or length that does not change
# the size; 1 a length that makes the argument 8 bytes (l, ll, z, j, t, L, q); 4 a conversion of a
# 4-byte argument (d i u o x X c); 8 a conversion of an 8-byte one (doubles, strings, pointers);
# 3 anything else (the conversion ends with no argument).
_CLASS = [3] * 128
for _c in "0123456789-+ #.h*'":
    _CLASS[ord(_c)] = 0
for _c in "lzjtLq":
    _CLASS[ord(_c)] = 1
for _c in "diuoxXc":
    _CLASS[ord(_c)] = 4
for _c in "fFeEgGaAsp":
    _CLASS[ord(_c)] = 8

VPRINTF_PTX = f"""
.global .align 1 .b8 __gpusim_printf_class[128] = {{{", ".join(str(c) for c in _CLASS)}}};
.global .align 8 .b8 __gpusim_printf_fifo[{FIFO_BYTES}];
.global .align 8 .u64 __gpusim_printf_top;
.visible .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_fmt, .param .b64 vprintf_args)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<24>;
    ld.param.u64 %rd1, [vprintf_fmt];
    ld.param.u64 %rd2, [vprintf_args];
    mov.u64 %rd3, %rd1;
    mov.u64 %rd4, 0;
    mov.u32 %r10, 0;
    mov.u64 %rd20, __gpusim_printf_class;
$gpusim_vprintf_scan:
    ld.u8 %r1, [%rd3];
    add.u64 %rd3, %rd3, 1;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $gpusim_vprintf_sized;
    setp.ne.u32 %p1, %r1, 37;
    @%p1 bra $gpusim_vprintf_scan;
    ld.u8 %r1, [%rd3];
    setp.ne.u32 %p1, %r1, 37;
    @%p1 bra $gpusim_vprintf_spec;
    add.u64 %rd3, %rd3, 1;
    bra $gpusim_vprintf_scan;
$gpusim_vprintf_spec:
    mov.u32 %r3, 4;
$gpusim_vprintf_spec_char:
    ld.u8 %r1, [%rd3];
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $gpusim_vprintf_sized;
    add.u64 %rd3, %rd3, 1;
    setp.ge.u32 %p1, %r1, 128;
    @%p1 bra $gpusim_vprintf_scan;
    cvt.u64.u32 %rd5, %r1;
    add.u64 %rd6, %rd20, %rd5;
    ld.global.u8 %r2, [%rd6];
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra $gpusim_vprintf_spec_char;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 mov.u32 %r3, 8;
    @%p1 bra $gpusim_vprintf_spec_char;
    setp.eq.u32 %p1, %r2, 3;
    @%p1 bra $gpusim_vprintf_scan;
    max.u32 %r3, %r3, %r2;
    cvt.u64.u32 %rd7, %r3;
    sub.u64 %rd8, %rd7, 1;
    add.u64 %rd4, %rd4, %rd8;
    not.b64 %rd9, %rd8;
    and.b64 %rd4, %rd4, %rd9;
    add.u64 %rd4, %rd4, %rd7;
    add.u32 %r10, %r10, 1;
    bra $gpusim_vprintf_scan;
$gpusim_vprintf_sized:
    add.u64 %rd10, %rd4, {RECORD_HEADER + 7};
    and.b64 %rd10, %rd10, -8;
    mov.u64 %rd11, __gpusim_printf_top;
    atom.global.add.u64 %rd12, [%rd11], %rd10;
    add.u64 %rd13, %rd12, %rd10;
    setp.gt.u64 %p2, %rd13, {FIFO_BYTES};
    @%p2 bra $gpusim_vprintf_done;
    mov.u64 %rd14, __gpusim_printf_fifo;
    add.u64 %rd15, %rd14, %rd12;
    cvt.u32.u64 %r4, %rd10;
    st.global.u32 [%rd15], %r4;
    cvt.u32.u64 %r5, %rd4;
    st.global.u32 [%rd15+4], %r5;
    st.global.u64 [%rd15+8], %rd1;
    add.u64 %rd15, %rd15, {RECORD_HEADER};
    mov.u64 %rd16, 0;
$gpusim_vprintf_copy:
    setp.ge.u64 %p3, %rd16, %rd4;
    @%p3 bra $gpusim_vprintf_done;
    add.u64 %rd17, %rd2, %rd16;
    ld.u8 %r6, [%rd17];
    add.u64 %rd18, %rd15, %rd16;
    st.global.u8 [%rd18], %r6;
    add.u64 %rd16, %rd16, 1;
    bra $gpusim_vprintf_copy;
$gpusim_vprintf_done:
    st.param.b32 [func_retval0], %r10;
    ret;
}}
"""

MALLOC_PTX = f"""
.global .align 16 .b8 __gpusim_heap[{HEAP_BYTES}];
.global .align 8 .u64 __gpusim_heap_top;
.visible .func (.param .b64 func_retval0) malloc(.param .b64 size)
{{
    .reg .pred %p<2>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [size];
    add.u64 %rd1, %rd1, 15;
    and.b64 %rd1, %rd1, -16;
    mov.u64 %rd2, __gpusim_heap_top;
    atom.global.add.u64 %rd3, [%rd2], %rd1;
    add.u64 %rd4, %rd3, %rd1;
    setp.gt.u64 %p1, %rd4, {HEAP_BYTES};
    mov.u64 %rd5, __gpusim_heap;
    add.u64 %rd6, %rd5, %rd3;
    selp.b64 %rd7, 0, %rd6, %p1;
    st.param.b64 [func_retval0], %rd7;
    ret;
}}
.visible .func free(.param .b64 ptr)
{{
    ret;
}}
"""

# function name -> the PTX that defines it (one text may define several)
LIBRARY = {"vprintf": VPRINTF_PTX, "malloc": MALLOC_PTX, "free": MALLOC_PTX}
_EXTERN = re.compile(r"\.extern\s+\.func\s*(?:\([^)]*\))?\s*(\w+)")


def missing(text: str, defined) -> list[str]:
    """The library texts a module needs: functions it declares `.extern` and does not define."""
    out: list[str] = []
    for name in _EXTERN.findall(text):
        lib = LIBRARY.get(name)
        if lib is not None and name not in defined and lib not in out:
            out.append(lib)
    return out


# ---------------------------------------------------------------------------- printf on the host
_CONV = re.compile(r"%([-+ #0']*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|z|j|t|L|q)?([diouxXcfFeEgGaAsp%])")


def printf_records(read, fifo: int, top: int, const_bytes: bytes) -> tuple[str, int]:
    """(the text the kernel's printf calls produce, bytes of records lost to a full FIFO).

    read(address, nbytes) -> bytes reads global memory; fifo is the FIFO's address; top the bytes
    the kernel reserved in it."""
    out, pos, used = [], 0, min(top, FIFO_BYTES)
    while pos + RECORD_HEADER <= used:
        length, nargs, fmt_addr = struct.unpack("<IIQ", bytes(read(fifo + pos, RECORD_HEADER)))
        if length < RECORD_HEADER or pos + length > used:
            break
        args = bytes(read(fifo + pos + RECORD_HEADER, nargs))
        out.append(_format(_c_string(read, fmt_addr, const_bytes), args, read, const_bytes))
        pos += length
    return "".join(out), max(top - FIFO_BYTES, 0)


def _c_string(read, addr: int, const_bytes: bytes, limit: int = 4096) -> str:
    if CONST_WINDOW <= addr < CONST_WINDOW + WINDOW_SIZE:
        off = addr - CONST_WINDOW
        raw = const_bytes[off:off + limit]
    elif addr >= GLOBAL_BASE:
        try:
            raw = bytes(read(addr, limit))
        except (IndexError, ValueError):
            return "(invalid)"
    else:
        return "(null)" if addr == 0 else "(invalid)"
    end = raw.find(b"\0")
    return (raw if end < 0 else raw[:end]).decode("utf-8", "replace")


def _format(fmt: str, args: bytes, read, const_bytes: bytes) -> str:
    pieces, last, off = [], 0, 0
    for m in _CONV.finditer(fmt):
        pieces.append(fmt[last:m.start()])
        last = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            pieces.append("%")
            continue
        size = 8 if conv in "fFeEgGaAsp" or length in ("l", "ll", "z", "j", "t", "L", "q") else 4
        off = (off + size - 1) & ~(size - 1)
        raw = args[off:off + size]
        off += size
        if len(raw) < size:
            pieces.append(m.group())
            continue
        spec = "%" + flags.replace("'", "") + (width or "") + ("." + prec if prec is not None else "")
        if conv in "fFeEgG":
            pieces.append((spec + conv) % struct.unpack("<d", raw)[0])
        elif conv in "aA":
            v = float.hex(struct.unpack("<d", raw)[0])
            pieces.append(v.upper() if conv == "A" else v)
        elif conv == "s":
            pieces.append((spec + "s") % _c_string(read, struct.unpack("<Q", raw)[0], const_bytes))
        elif conv == "p":
            pieces.append("0x%x" % struct.unpack("<Q", raw)[0])
        elif conv == "c":
            pieces.append((spec + "c") % chr(raw[0]))
        else:
            signed = conv in "di"
            v = int.from_bytes(raw, "little", signed=signed)
            if length in ("h", "hh"):
                bits = 16 if length == "h" else 8
                v &= (1 << bits) - 1
                if signed and v >= 1 << (bits - 1):
                    v -= 1 << bits
            pieces.append((spec + ("d" if conv in "diu" else conv)) % v)
    pieces.append(fmt[last:])
    return "".join(pieces)
