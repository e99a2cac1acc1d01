# delta.py: the sixteenth round's µs table (wgrad-experiments.md): at the d_out 128 points with
# T ≥ 40963, the median over the runs of each point of the best split program's time, then per
# build the median (range) over the points of (build − m) by out dtype and of BF16 − FP32 out.
#   python3 delta.py variants-N.tsv
import csv,collections,statistics as st,sys
# median over runs per (build, point), then per build: median (range) of (build - m) in us at
# d_out 128, T >= 40963, by out dtype; and BF16 - FP32 per build
rows=list(csv.DictReader(open(sys.argv[1]),delimiter='\t'))
d=collections.defaultdict(list)
for r in rows:
    b=r['run'].rsplit('_',1)[0]
    d[(b,r['d_in'],r['d_out'],r['T'],r['out'])].append(float(r['split_us']))
med={k:st.median(v) for k,v in d.items()}
builds=sorted({k[0] for k in med})
for b in builds:
    out=[]
    for o in ('bf16','fp32'):
        xs=[med[k]-med[('m',)+k[1:]] for k in med if k[0]==b and k[2]=='128' and int(k[3])>=40963 and k[4]==o]
        out.append(f"{o} {st.median(xs):+.2f} ({min(xs):+.2f}..{max(xs):+.2f})")
    bf=[med[k]-med[k[:4]+('fp32',)] for k in med if k[0]==b and k[2]=='128' and int(k[3])>=40963 and k[4]=='bf16']
    out.append(f"bf16-fp32 {st.median(bf):.2f} ({min(bf):.2f}..{max(bf):.2f})")
    print(b,' | '.join(out))
