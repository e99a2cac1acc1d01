#!/usr/bin/env bash
# run8.sh: thirteenth round, call 8 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run8.sh
# build-exp/gemmq-knob: the wgmma stream-K with the fixup spread over a row of CTAs per boundary,
# and a knob GQX_SK_BN (not committed) that caps the stream-K tile's block_n: gemmq:streamk and
# gemmq:det benched at the memory-bound points with the tile as planned (64×256 at d_out ≤ 64)
# and with block_n ≤ 128 (64×128, two CTAs per SM), twice each, alternating.
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-8.txt
P=protocols/k1_wgrad_membound.json
for r in 1 2; do
	for v in 256 128; do
		GQX_SK_BN=$v timeout 200 build-exp/gemmq-knob bench $P -p gemmq:streamk -p gemmq:det -q -o $OUT/sk$v-$r.json --md $OUT/sk$v-$r.md > $OUT/sk$v-$r.log 2>&1
		echo "bn $v run $r rc=$?"
	done
done
