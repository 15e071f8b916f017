"""Calculator behind the hand-built blocks in bc_bc6h_decode_test.cpp.

Lays out one BC6H block per mode bit by bit from the spec's Table.F format
strings (a second copy of the spec strings, read by code independent of the
decoder's compile-time parser) and works out the
expected halves with the spec's unquantize / interpolate / finish_unquantize
formulas. Run with python3; it writes the C++ initialisers to
/tmp/bptc/cases.txt, which were pasted into the test.
"""
modes = [ # code, codebits, transformed, subsets, epb, delta, format
 (0,2,1,2,10,(5,5,5),"g2[4],b2[4],b3[4],r0[9:0],g0[9:0],b0[9:0],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]"),
 (1,2,1,2,7,(6,6,6),"g2[5],g3[4],g3[5],r0[6:0],b3[0],b3[1],b2[4],g0[6:0],b2[5],b3[2],g2[4],b0[6:0],b3[3],b3[5],b3[4],r1[5:0],g2[3:0],g1[5:0],g3[3:0],b1[5:0],b2[3:0],r2[5:0],r3[5:0]"),
 (2,5,1,2,11,(5,4,4),"r0[9:0],g0[9:0],b0[9:0],r1[4:0],r0[10],g2[3:0],g1[3:0],g0[10],b3[0],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]"),
 (6,5,1,2,11,(4,5,4),"r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],g3[4],g2[3:0],g1[4:0],g0[10],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],r2[3:0],b3[0],b3[2],r3[3:0],g2[4],b3[3]"),
 (10,5,1,2,11,(4,4,5),"r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],b2[4],g2[3:0],g1[3:0],g0[10],b3[0],g3[3:0],b1[4:0],b0[10],b2[3:0],r2[3:0],b3[1],b3[2],r3[3:0],b3[4],b3[3]"),
 (14,5,1,2,9,(5,5,5),"r0[8:0],b2[4],g0[8:0],g2[4],b0[8:0],b3[4],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]"),
 (18,5,1,2,8,(6,5,5),"r0[7:0],g3[4],b2[4],g0[7:0],b3[2],g2[4],b0[7:0],b3[3],b3[4],r1[5:0],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[5:0],r3[5:0]"),
 (22,5,1,2,8,(5,6,5),"r0[7:0],b3[0],b2[4],g0[7:0],g2[5],g2[4],b0[7:0],g3[5],b3[4],r1[4:0],g3[4],g2[3:0],g1[5:0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]"),
 (26,5,1,2,8,(5,5,6),"r0[7:0],b3[1],b2[4],g0[7:0],b2[5],g2[4],b0[7:0],b3[5],b3[4],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[5:0],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]"),
 (30,5,0,2,6,(6,6,6),"r0[5:0],g3[4],b3[0],b3[1],b2[4],g0[5:0],g2[5],b2[5],b3[2],g2[4],b0[5:0],g3[5],b3[3],b3[5],b3[4],r1[5:0],g2[3:0],g1[5:0],g3[3:0],b1[5:0],b2[3:0],r2[5:0],r3[5:0]"),
 (3,5,0,1,10,(10,10,10),"r0[9:0],g0[9:0],b0[9:0],r1[9:0],g1[9:0],b1[9:0]"),
 (7,5,1,1,11,(9,9,9),"r0[9:0],g0[9:0],b0[9:0],r1[8:0],r0[10],g1[8:0],g0[10],b1[8:0],b0[10]"),
 (11,5,1,1,12,(8,8,8),"r0[9:0],g0[9:0],b0[9:0],r1[7:0],r0[10:11],g1[7:0],g0[10:11],b1[7:0],b0[10:11]"),
 (15,5,1,1,16,(4,4,4),"r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10:15],g1[3:0],g0[10:15],b1[3:0],b0[10:15]"),
]
def unq(x,epb,sg):
    if not sg:
        if epb>=15: return x
        if x==0: return 0
        if x==(1<<epb)-1: return 0xFFFF
        return ((x<<15)+0x4000)>>(epb-1)
    if epb>=16: return x
    s = x<0; x=abs(x)
    if x==0: u=0
    elif x>=(1<<(epb-1))-1: u=0x7FFF
    else: u=((x<<15)+0x4000)>>(epb-1)
    return -u if s else u
def fin(x,sg):
    if not sg: return (x*31)>>6
    if x<0: return (((-x)*31)>>5)|0x8000
    return (x*31)>>5
def sext(v,b):
    v &= (1<<b)-1
    return v-(1<<b) if v>>(b-1) else v
import random
random.seed(7)
out=[]
cases=[]
for mi,(code,cb,tr,ns,epb,delta,fmt) in enumerate(modes):
  for sg in ([False,True] if mi in (0,10,13) else [False]):
    # choose endpoint values; deltas small
    fields=[0]*12
    if sg:
        base=[-(1<<(epb-2))+3, (1<<(epb-2))+5, -7]
    else:
        base=[(1<<(epb-1))+ (1<<(epb-3)) +1, (1<<(epb-2))+3, (1<<epb)-2]
    ds=[[1,-1,2],[3,0,-3],[-2,4,1]]
    nf=6*ns
    ends=[base[:]]
    for k in range(1,2*ns):
        if tr:
            d=[ds[k-1][c] for c in range(3)]
            stored=[d[c]&((1<<delta[c])-1) for c in range(3)]
            e=[(base[c]+d[c])&((1<<epb)-1) for c in range(3)]
            if sg: e=[sext(v,epb) for v in e]
        else:
            e=[base[c]+ds[k-1][c]*5 for c in range(3)]
            e=[max(-(1<<(epb-1)) if sg else 0,min(v,(1<<(epb-1))-1 if sg else (1<<epb)-1)) for v in e]
            stored=[v&((1<<epb)-1) for v in e]
        ends.append(e)
        for c in range(3): fields[3*k+c]=stored[c]
    for c in range(3): fields[c]=base[c]&((1<<epb)-1)
    # bit stream
    bits=[]
    for i in range(cb): bits.append((code>>i)&1)
    for tok in fmt.split(','):
        ch='rgb'.index(tok[0]); k=int(tok[1]); rng=tok[3:-1]
        if ':' in rng: a,b=map(int,rng.split(':'))
        else: a=b=int(rng)
        f=3*k+ch
        order = list(range(a,b-1,-1)) if a>=b else list(range(a,b+1))
        # a>=b: value bits b..a with LSB first in stream: stream order b,b+1,...,a
        if a>=b: order=list(range(b,a+1))
        else: order=list(range(b,a-1,-1))
        for bit in order: bits.append((fields[f]>>bit)&1)
    if ns==2:
        for i in range(5): bits.append(0) # partition 0
    idxbits = 3 if ns==2 else 4
    idx=[0]*16
    if ns==2:
        idx[1]=7; idx[2]=7; idx[15]=0; idx[6]=4
        anchors={0,15}
    else:
        idx[1]=15; idx[5]=8
        anchors={0}
    for t in range(16):
        n=idxbits-(1 if t in anchors else 0)
        for i in range(n): bits.append((idx[t]>>i)&1)
    assert len(bits)==128,(mi,len(bits))
    raw=bytes(sum(bits[8*i+j]<<j for j in range(8)) for i in range(16))
    u=[[unq(e[c],epb,sg) for c in range(3)] for e in ends]
    w3=[0,9,18,27,37,46,55,64]; w4=[0,4,9,13,17,21,26,30,34,38,43,47,51,55,60,64]
    exp=[]
    sub=[0,0,1,1]*4 if ns==2 else [0]*16
    for t in range(16):
        s=sub[t]; w=(w3 if ns==2 else w4)[idx[t]]
        a=u[2*s]; b=u[2*s+1]
        exp.append([fin((a[c]*(64-w)+b[c]*w+32)>>6,sg) for c in range(3)])
    cases.append((mi,code,sg,raw,ends,exp))
print(len(cases))
import os
os.makedirs('/tmp/bptc', exist_ok=True)
with open('/tmp/bptc/cases.txt','w') as f:
  for mi,code,sg,raw,ends,exp in cases:
    f.write(f"// mode code {code} ({'signed' if sg else 'unsigned'}): endpoints {ends}\n")
    f.write("{%d, %s, {%s},\n {%s}},\n" % (code, 'true' if sg else 'false', ', '.join('0x%02x'%b for b in raw),
        ', '.join('0x%04x'%v for e in exp for v in e)))
