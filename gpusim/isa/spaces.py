"""The generic address space as gpusim lays it out.

Global memory lives at GLOBAL_BASE and up (module variables first, then allocations).
Shared, local, const and param state spaces are addressed by offsets within their space; a generic
address in one of the windows below maps back to that space (what cvta does).
"""
GLOBAL_BASE = 1 << 40
WINDOW_SIZE = 1 << 32
SHARED_WINDOW = 1 << 48
LOCAL_WINDOW = 2 << 48
CONST_WINDOW = 3 << 48
PARAM_WINDOW = 4 << 48
# Distributed shared memory (thread-block clusters): a .shared::cluster address names the CTA of rank r
# by (r + 1) << CLUSTER_SHIFT above its offset (what mapa returns); an address without those bits is the
# issuing CTA's own shared memory, so every .shared::cta address is also a valid .shared::cluster one.
CLUSTER_SHIFT = 24
SMEM_OFFSET_MASK = (1 << CLUSTER_SHIFT) - 1
MAX_CLUSTER = 16           # CTAs per cluster (8 portable, 16 non-portable on sm_90)
ALLOC_ALIGN = 256          # cudaMalloc promises 256-byte aligned pointers (its pool gives 512: memory/device.py)
ALLOC_GUARD = 256          # bytes left unallocated between allocations, so overruns fault
