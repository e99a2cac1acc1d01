"""kernel_src.py: what the scripts that write an instrumented copy of the wgrad kernel share
(round13/trace.py, round14/pad.py): the kernel's source read from SRC (default
kernels/gemm_wgmma.cu, from the repository root), text put before or after anchors that must occur
in it exactly once, and the result written to OUT.

    k = KernelSource('name.py', sys.argv)   # argv: OUT [SRC]
    k.put(anchor, text, before=False)
    k.write()
"""
import sys


class KernelSource:
    def __init__(self, name, argv):
        if len(argv) < 2:
            sys.exit(f'usage: {name} OUT [SRC]   (SRC: default kernels/gemm_wgmma.cu)')
        self.name, self.out = name, argv[1]
        self.path = argv[2] if len(argv) > 2 else 'kernels/gemm_wgmma.cu'
        self.src = open(self.path).read()

    def put(self, anchor, text, before=False):
        if self.src.count(anchor) != 1:
            sys.exit(f'{self.name}: the anchor is not in {self.path} once: {anchor!r}')
        self.src = self.src.replace(anchor, text + anchor if before else anchor + text)

    def write(self):
        open(self.out, 'w').write(self.src)
