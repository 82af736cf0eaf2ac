import numpy as np, math
def gauss_w(offsets, s):
    w = np.exp(-0.5*(offsets/s)**2); return w/w.sum()
def clamp(i,n): return min(max(i,0),n-1)
def exact_matrix(N, sigma):
    R = int(math.ceil(6*sigma)); K = np.zeros((N,N))
    w = gauss_w(np.arange(-R,R+1,dtype=float), sigma)
    for x in range(N):
        for t in range(-R,R+1): K[x, clamp(x+t,N)] += w[t+R]
    return K
def fitted_small_blur(sigma, D, Rs, c, trunc, points=64):
    # least squares over theta in [0, 2 pi): P(theta/D)^2 B(theta) against
    # exp(-sigma^2 (theta/D)^2 / 2), P the prefilter's taps' response, B the
    # symmetric filter b_0 + 2 sum b_k cos(k theta) with sum 1
    sp = c*D; cen = (D-1)/2.0
    off = np.arange(math.ceil(cen - trunc*sp), math.floor(cen + trunc*sp)+1) - cen
    g = np.exp(-0.5*(off/sp)**2); g /= g.sum()
    th = (np.arange(points)+0.5)*(2*math.pi/points); w = th/D
    pp = (np.cos(np.outer(w, off)) @ g)**2
    A = np.stack([pp*(2*np.cos(k*th) - 2) for k in range(1, Rs+1)], 1)
    x = np.linalg.solve(A.T@A, A.T@(np.exp(-0.5*(sigma*w)**2) - pp))
    b = np.concatenate([[1 - 2*x.sum()], x])
    return np.concatenate([b[:0:-1], b])
def ms_matrix(N, sigma, D, c=0.75, trunc=3.5, smin=3.0, sampled=False):
    sp = su = c*D
    ss = math.sqrt(sigma**2 - sp**2 - su**2)/D
    Rp = trunc*sp; Ru = trunc*su; Rs = int(math.ceil(trunc*ss))
    E = Ru + Rs*D + D
    G = int(math.ceil(E/D)) + 1
    Ws = int(math.ceil(N/D)) + 2*G
    centre = lambda i: D*(i-G) + (D-1)/2.0
    # down: Ws x N
    Dn = np.zeros((Ws,N))
    for i in range(Ws):
        xc = centre(i); ks = np.arange(math.ceil(xc-Rp), math.floor(xc+Rp)+1)
        w = gauss_w(ks - xc, sp)
        for k,wk in zip(ks,w): Dn[i, clamp(int(k),N)] += wk
    # blur small: Ws x Ws (clamp); the weights fitted as cuda/multiscale.c's
    # append_small_blur does, or (sampled=True) the sampled Gaussian of ss
    Bs = np.zeros((Ws,Ws))
    w = (gauss_w(np.arange(-Rs,Rs+1,dtype=float), ss) if sampled
         else fitted_small_blur(sigma, D, Rs, c, trunc))
    for i in range(Ws):
        for t in range(-Rs,Rs+1): Bs[i, clamp(i+t,Ws)] += w[t+Rs]
    # up: N x Ws
    Up = np.zeros((N,Ws))
    for x in range(N):
        u = (x - (D-1)/2.0)/D + G
        i0 = math.ceil(u - Ru/D); i1 = math.floor(u + Ru/D)
        idx = np.arange(i0, i1+1); w = gauss_w(D*(idx - u), su)
        for i,wi in zip(idx,w): Up[x, clamp(int(i),Ws)] += wi
    return Up @ Bs @ Dn, ss
def plan_factor(sigma, early_d16):
    # cuda/multiscale.c, axis_stages: the largest D from 8 whose least sigma
    # it reaches (10 for D = 8: sigma / D = 1.25, sigma_small 0.661;
    # 20 for D = 16 on early_d16 planes, the same ratio (21.5 before
    # 2026-12-01: sigma / D = 1.34375, sigma_small 0.825); 3.2 D elsewhere)
    D = 64
    while D > 8 and sigma < (20 if D == 16 and early_d16 else 3.2*D):
        D //= 2
    return D
import sys
# every factor's end points (least sigma, just below the next one's) and
# sigmas between; "early" takes the plan of 8-bit planes of one and four
# channels (gb_multiscale_early_d16), "all" prints every factor
# "sampled" (a last argument): the small blur as the sampled Gaussian of
# sigma_small, as before 2026-11-30
sampled = sys.argv[-1:] == ["sampled"]
if sampled: sys.argv = sys.argv[:-1]
sigmas = [10, 10.25, 10.5, 10.75, 11, 11.5, 12, 12.8, 13, 14, 15, 17, 19.9, 20, 20.1, 20.3, 20.5, 21, 21.4, 21.5, 22, 23,
          25, 25.6, 27, 30, 35, 40, 51.1, 51.2, 60, 80, 100, 102.3, 102.4,
          150, 204.7, 204.8, 250]
early = sys.argv[1:] == ["early"]
cases = [(sigma, D) for sigma in sigmas
         for D in ([4,8,16,32,64] if sys.argv[1:] == ["all"] else [plan_factor(sigma, early)])]
if sys.argv[1:] == ["below"]:
    # why no smaller small blur: D = 8 below its least sigma, and D = 16
    # below its least (18) and at the early D = 16's 20 and 21 (below it
    # until the thirty-third session)
    cases = [(s, 8) for s in (9, 9.5, 9.9)] + [(s, 16) for s in (18, 20, 21)]
for sigma, D in cases:
    if sigma*sigma - 2*(0.75*D)**2 <= 0: continue
    N = 600 if sigma < 60 else 2000
    K = exact_matrix(N, sigma); M, ss = ms_matrix(N, sigma, D, sampled=sampled)
    d = M - K
    worst = 255*max(np.maximum(d,0).sum(1).max(), np.maximum(-d,0).sum(1).max())
    print(f"sigma {sigma:5} D {D:3} sigma_small {ss:5.2f}  1D worst error {worst:.4f} levels  (2D ~{2*worst:.3f})", flush=True)
