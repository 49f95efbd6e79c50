#!/bin/sh
# Regenerate the PTX of every CUDA C program here (nvcc on PATH; the .ptx files are committed so
# users need no CUDA toolkit). Usage: programs/cuda/build.sh
set -e
cd "$(dirname "$0")"
for src in *.cu; do
    nvcc -arch=sm_90 -ptx -lineinfo "$src" -o "${src%.cu}.ptx"
    echo "built ${src%.cu}.ptx"
done
