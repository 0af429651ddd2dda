"""Reference statistics for ndnlab's distribution fits (scipy).

Usage: python fit_reference.py DATA_FILE
DATA_FILE holds one number per line. Prints one JSON object with scipy's
numbers for the same data; crates/ndnlab-analysis/tests/fit_reference.rs compares
ndnlab's own computations with them.
"""
import json
import sys

import numpy as np
from scipy import stats

x = np.loadtxt(sys.argv[1])
out = {}
out["normal_ppcc"] = stats.probplot(x, dist="norm", fit=True)[1][2]
out["ad_norm"] = float(stats.anderson(x, dist="norm").statistic)
out["ad_expon"] = float(stats.anderson(x, dist="expon").statistic)
lam_r = float(stats.boxcox_normmax(x, method="pearsonr"))
out["boxcox_lambda_pearsonr"] = lam_r
out["boxcox_ppcc"] = float(stats.probplot(stats.boxcox(x, lmbda=lam_r), dist="norm", fit=True)[1][2])
out["boxcox_lambda_mle"] = float(stats.boxcox_normmax(x, method="mle"))
a, loc, scale = stats.gamma.fit(x, floc=0)
out["gamma"] = {"shape": a, "scale": scale}
out["ks_gamma"] = float(stats.kstest(x, "gamma", args=(a, 0, scale)).statistic)
c, loc, scale = stats.weibull_min.fit(x, floc=0)
out["weibull"] = {"shape": c, "scale": scale}
out["ks_weibull"] = float(stats.kstest(x, "weibull_min", args=(c, 0, scale)).statistic)
s, loc, scale = stats.lognorm.fit(x, floc=0)
out["lognormal"] = {"mu": float(np.log(scale)), "sigma": s}
print(json.dumps({k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in out.items()}))
