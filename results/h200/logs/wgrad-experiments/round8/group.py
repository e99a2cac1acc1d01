# group.py: the tables of wgrad-experiments.md, eighth round: python3 group.py variants-N.tsv BASE
# (BASE: the run name of the kernel on main, a or m) gives, per variant, its best split program
# over main's at d_out 128 (median and range over both runs) and over cuBLASLt's fastest.
import csv,collections,sys,statistics
f=sys.argv[1]; base=sys.argv[2]
rows=list(csv.DictReader(open(f),delimiter='\t'))
by=collections.defaultdict(dict); cl=collections.defaultdict(list)
for r in rows:
    if r['d_out']!='128': continue
    k=(r['d_in'],int(r['T']),r['out'])
    by[k][r['run']]=float(r['split_us']); cl[k].append(float(r['cublaslt_us']))
runs=sorted({r['run'].rsplit('_',1)[0] for r in rows}, key=lambda x:(x!=base,x))
groups=[('4096, T ≥ 65471',lambda k:k[0]=='4096' and k[1]>=65471),('5120, T ≥ 65471',lambda k:k[0]=='5120' and k[1]>=65471),
        ('4096, T = 40963',lambda k:k[0]=='4096' and k[1]==40963),('5120, T = 40963',lambda k:k[0]=='5120' and k[1]==40963),
        ('T ≤ 16384',lambda k:k[1]<=16384)]
print('| run | '+' | '.join(g for g,_ in groups)+' | vs cuBLASLt at T ≥ 65471 |'); print('|---'*(len(groups)+2)+'|')
for v in runs:
    cells=[]
    for g,fn in groups:
        vals=[]
        for k in by:
            if not fn(k): continue
            a=statistics.mean([by[k][r] for r in by[k] if r.rsplit('_',1)[0]==base])
            vals+= [by[k][r]/a for r in by[k] if r.rsplit('_',1)[0]==v]
        cells.append('%.3f (%.3f–%.3f)'%(statistics.median(vals),min(vals),max(vals)))
    vs=[by[k][r]/min(cl[k]) for k in by if k[1]>=65471 for r in by[k] if r.rsplit('_',1)[0]==v]
    cells.append('%.3f–%.3f'%(min(vs),max(vs)))
    print('| %s | '%v+' | '.join(cells)+' |')
