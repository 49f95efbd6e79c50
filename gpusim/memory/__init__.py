"""Address spaces and device memory: allocation, windows of the generic address space, accessors."""
