# Re-derives the summary from bench.csv: 3xtf32 counts only configs that keep the accuracy contract's
# means (ACC 2 = sums outside the tensor core, NaN-safe CVT 1 or 3); acc0 is a speed yardstick only.
import csv, math, collections, sys
rows = list(csv.reader(open(sys.argv[1])))
by = collections.defaultdict(list); order = []
for r in rows:
    by[r[0]].append(r)
    if r[0] not in order: order.append(r[0])
g = []; gbig = []
print("| shape | cuBLAS SGEMM TF/s | best 3xtf32 TF/s (config) | x SGEMM | norm err 3xtf32 / SGEMM | elem/(K u) 3xtf32 / SGEMM | tf32 / cuBLAS TF32 | bf16 / cuBLAS BF16 | fp16 / cuBLAS FP16 |")
print("|---|---|---|---|---|---|---|---|---|")
def f(x): return float(x)
for sh in order:
    rs = by[sh]
    cub = {r[1]: r for r in rs if r[1].startswith('cuBLAS')}
    sg = cub['cuBLAS SGEMM']
    def best(who, ok=lambda r: True):
        c = [r for r in rs if r[1] == who and ok(r)]
        return max(c, key=lambda r: f(r[5])) if c else None
    b3 = best('ours 3xtf32', lambda r: 'acc2' in r[2] and ('cvt1' in r[2] or 'cvt3' in r[2]))
    name = b3[2] + ('' if b3[3] == '1' else '')
    line = f"| {sh} | {f(sg[5]):.1f} | {f(b3[5]):.1f} ({name}) | {f(b3[5])/f(sg[5]):.2f} | {f(b3[6]):.2e} / {f(sg[6]):.2e} | {f(b3[7]):.3f} / {f(sg[7]):.3f} |"
    for who, cb in (('ours tf32', 'cuBLAS TF32'), ('ours bf16', 'cuBLAS BF16'), ('ours fp16', 'cuBLAS FP16')):
        b = best(who)
        if b is None or cb not in cub: line += " - |"; continue
        line += f" {f(b[5]):.1f} / {f(cub[cb][5]):.1f} = {f(b[5])/f(cub[cb][5]):.2f} ({b[2].split(' cvt')[0]}) |"
    print(line)
    if 'wide' in sh: continue
    r = math.log(f(b3[5]) / f(sg[5])); g.append(r)
    m, n, k = map(int, sh.split('x'))
    if min(m, n, k) >= 1024: gbig.append(r)
print(f"\n3xtf32 / SGEMM geometric mean: {math.exp(sum(g)/len(g)):.3f} over {len(g)} shapes; {math.exp(sum(gbig)/len(gbig)):.3f} over the {len(gbig)} with m, n, k >= 1024; min {math.exp(min(g)):.2f}")
