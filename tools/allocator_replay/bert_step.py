# The allocation trace of an HF BertForSequenceClassification (bert-large-uncased) training step in fp32 with
# eager attention, op by op, as PyTorch 1.x ran it under the Trainer of transformers 4.18: parameters moved to
# the GPU in module order, forward with the tensors autograd saves, backward releasing them node by node,
# gradients kept between steps (zero_grad(set_to_none=False)), and transformers' per-parameter AdamW.
# Usage: python3 tools/allocator_replay/bert_step.py MICRO_BATCH GRAD_ACCUM [STEPS] | /tmp/replay
# docs/methodology.md section 8 (BERT-large) gives what it showed.
import sys
B=int(sys.argv[1]); GA=int(sys.argv[2]); STEPS=int(sys.argv[3]) if len(sys.argv)>3 else 3
S_=512; Hd=1024; NH=16; I=4096; V=30522; L=24; F=4
H=B*S_*Hd*F; SC=B*NH*S_*S_*F; out=[]; nid=[0]
def m(sz):
    nid[0]+=1; out.append(f"m {nid[0]} {int(sz)}"); return nid[0]
def f(*ids):
    for i in ids: out.append(f"f {i}")
def p(l): out.append(f"p {l}")
# parameters in module order
params=[V*Hd,512*Hd,2*Hd,Hd,Hd]
for l in range(L):
    params += [Hd*Hd,Hd]*3 + [Hd*Hd,Hd,Hd,Hd, I*Hd,I, Hd*I,Hd, Hd,Hd]
params += [Hd*Hd,Hd,2*Hd,2]
pid=[m(n*F) for n in params]
grad={}; state={}
def pgrad(idx, first):
    g=m(params[idx]*F)
    if idx in grad: f(g)          # accumulate into the existing .grad, free the new one
    else: grad[idx]=g
def layer_pidx(l, k):  # index of param k within layer l
    return 5 + l*16 + k
def fwd():
    saved=[]
    we=m(H); te=m(H); a=m(H); f(we,te); pe=m(H); a2=m(H); f(a,pe)
    y=m(H); mean=m(B*S_*F); rstd=m(B*S_*F); dm=m(H/4); x=m(H); f(y)
    emb=(a2,mean,rstd,dm)
    layers=[]
    for l in range(L):
        q=m(H); k=m(H); v=m(H); qc=m(H); kc=m(H)
        sc=m(SC); sc2=m(SC); f(sc); sc3=m(SC); f(sc2); pr=m(SC); f(sc3)
        dm1=m(SC/4); pd=m(SC); vc=m(H); c=m(H); cc=m(H); f(c); f(q,k,v)
        d=m(H); dm2=m(H/4); do=m(H); f(d); r=m(H); f(do)
        y=m(H); me=m(B*S_*F); rs=m(B*S_*F)
        i1=m(4*H); i2=m(4*H); o=m(H); dm3=m(H/4); o2=m(H); f(o); r2=m(H); f(o2)
        y2=m(H); me2=m(B*S_*F); rs2=m(B*S_*F)
        layers.append(dict(x=x,qc=qc,kc=kc,pr=pr,dm1=dm1,pd=pd,vc=vc,cc=cc,dm2=dm2,r=r,y=y,me=me,rs=rs,i1=i1,i2=i2,dm3=dm3,r2=r2,me2=me2,rs2=rs2))
        x=y2
    return emb, layers, x
def bwd(emb, layers, top, first):
    g=m(H); f(top)   # grad of the last hidden state (pooler/classifier are tiny)
    for l in reversed(range(L)):
        s=layers[l]; P=lambda k: layer_pidx(l,k)
        gin=m(H); pgrad(P(14),first); pgrad(P(15),first); f(g); f(s['r2'],s['me2'],s['rs2'])
        gd3=m(H); f(s['dm3'])
        gi2=m(4*H); pgrad(P(12),first); pgrad(P(13),first); f(gd3); f(s['i2'])
        gi1=m(4*H); f(gi2); f(s['i1'])
        gy1=m(H); pgrad(P(10),first); pgrad(P(11),first); f(gi1); f(s['y'])
        acc=m(H); f(gin,gy1)
        gr=m(H); pgrad(P(8),first); pgrad(P(9),first); f(acc); f(s['r'],s['me'],s['rs'])
        gd2=m(H); f(s['dm2'])
        gcc=m(H); pgrad(P(6),first); pgrad(P(7),first); f(gd2); f(s['cc'])
        gcb=m(H); f(gcc)
        gpd=m(SC); gvc=m(H); f(gcb); f(s['pd'],s['vc'])
        gpr=m(SC); f(gpd); f(s['dm1'])
        gsc=m(SC); f(gpr); f(s['pr'])
        gsc2=m(SC); f(gsc)
        gqc=m(H); gkc=m(H); f(gsc2); f(s['qc'],s['kc'])
        gv2=m(H); f(gvc); gxv=m(H); pgrad(P(4),first); pgrad(P(5),first); f(gv2)
        gk2=m(H); f(gkc); gxk=m(H); pgrad(P(2),first); pgrad(P(3),first); f(gk2); a1=m(H); f(gxv,gxk)
        gq2=m(H); f(gqc); gxq=m(H); pgrad(P(0),first); pgrad(P(1),first); f(gq2); a2=m(H); f(a1,gxq)
        f(s['x']) if l>0 else None
        a3=m(H); f(a2,gr); g=a3
    a2,mean,rstd,dm=emb
    gd=m(H); f(g); f(dm); gl=m(H); pgrad(3,first); pgrad(4,first); f(gd); f(a2,mean,rstd)
    pgrad(0,first); pgrad(1,first); pgrad(2,first); f(gl)
    f(layers[0]['x'])
    for idx in range(len(params)-4, len(params)): pgrad(idx, first)
def opt_step():
    for idx,n in enumerate(params):
        if idx not in state: state[idx]=(m(n*F), m(n*F))
        d=m(n*F); f(d)
for step in range(STEPS):
    for micro in range(GA):
        emb, layers, top = fwd()
        p(f"s{step}m{micro}_after_fwd")
        bwd(emb, layers, top, step==0 and micro==0)
    p(f"s{step}_after_bwd")
    opt_step()
    p(f"s{step}_after_opt")
print("\n".join(out))
