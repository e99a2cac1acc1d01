#!/usr/bin/env python3
"""sass.py CUBIN [NAME_PART]: the SASS of the sm_90 kernels in CUBIN (those whose names contain
NAME_PART, if given), through the nvdisasm named by $NVDISASM (default: nvdisasm).

The development machine has no nvdisasm of CUDA 13. Debian's non-free nvidia-cuda-toolkit
(11.8) has one, which reads the sm_90 code of CUDA 13's cubins once their ELF header says what
11.8 expects (OS ABI 0x33, ABI version 7, e_flags 0x5a055a: sm_90); the header is rewritten in
a temporary copy, the code is not touched. To get that nvdisasm without installing anything:
  echo "deb http://deb.debian.org/debian bookworm non-free" > /tmp/nf.list
  o="-oDir::Etc::SourceList=/tmp/nf.list -oDir::Etc::SourceParts=/dev/null -oDir::State::Lists=/tmp/nfl"
  mkdir -p /tmp/nfl/partial && apt-get $o update && apt-get $o download nvidia-cuda-toolkit
  dpkg -x nvidia-cuda-toolkit_*.deb /tmp/nf && export NVDISASM=/tmp/nf/usr/bin/nvdisasm
A cubin of ours: nvcc -cubin -arch=sm_90a -O3 -std=c++17 -Ikernels -Iharness
kernels/gemm_wgmma.cu -o wg.cubin (from the repository root)."""
import os
import re
import struct
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    d = bytearray(open(sys.argv[1], "rb").read())
    if d[:4] != b"\x7fELF":
        sys.exit(f"sass.py: {sys.argv[1]} is not an ELF file")
    d[7], d[8] = 0x33, 7
    struct.pack_into("<I", d, 48, 0x5A055A)
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(d)
    tool = os.environ.get("NVDISASM", "nvdisasm")
    try:
        r = subprocess.run([tool, "-c", f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        sys.exit(f"sass.py: {tool}: {r.stderr.strip()}")
    part = sys.argv[2] if len(sys.argv) == 3 else None
    for func in re.split(r"\n(?=\t\.section\t\.text\.)", r.stdout):
        m = re.match(r"\t\.section\t\.text\.([^,]+),", func)
        if m and (part is None or part in m.group(1)):
            print(func)


if __name__ == "__main__":
    main()
