"""Streaming multiprocessor: warps, SIMT stack, CTA execution, and (timing) schedulers and pipelines."""
