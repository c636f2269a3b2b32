#!/usr/bin/python3
# Prints the reference values pasted into tests/unit/test_stats.c (numpy 1.24.2, scipy 1.10.1, Debian 12).
import numpy as np, scipy.stats as st
from scipy.spatial.distance import jensenshannon
np.set_printoptions(precision=17)
x=np.array([2.1,3.4,1.9,5.6,4.2,3.3,2.8])
m=x.mean(); sd=x.std(ddof=1); n=len(x)
lo,hi=st.t.interval(0.95,n-1,loc=m,scale=sd/np.sqrt(n))
print("summary", repr(m), repr(np.median(x)), repr(sd), repr(lo), repr(hi))
print("q0.9", repr(np.quantile(x,0.9)), "q0.25", repr(np.quantile(x,0.25)))
a=[27.5,21.0,19.0,23.6,17.0,17.9,16.9,20.1,21.9,22.6,23.1,19.6,19.0,21.7,21.4]
b=[27.1,22.0,20.8,23.4,23.4,23.5,25.8,22.0,24.8,20.2,21.9,22.1,22.9,20.5,24.4]
r=st.ttest_ind(a,b,equal_var=False)
va=np.var(a,ddof=1)/len(a); vb=np.var(b,ddof=1)/len(b)
df=(va+vb)**2/(va**2/(len(a)-1)+vb**2/(len(b)-1))
print("welch", repr(r.statistic), repr(df), repr(r.pvalue))
# ratio, delta method
A=np.array([10.2,9.8,10.5,10.1,9.9]); B=np.array([5.1,4.9,5.3,5.0])
ma,mb=A.mean(),B.mean(); R=ma/mb
ra=A.var(ddof=1)/(len(A)*ma**2); rb=B.var(ddof=1)/(len(B)*mb**2)
se=abs(R)*np.sqrt(ra+rb); d=(ra+rb)**2/(ra**2/(len(A)-1)+rb**2/(len(B)-1))
tc=st.t.ppf(0.975,d)
print("ratio", repr(R), repr(se), repr(d), repr(R-tc*se), repr(R+tc*se))
print("gmean", repr(st.gmean([1,2,4,8,3.5])))
X=np.array([1,2,4,8,16,32,64.]); Y=np.array([3.1,4.6,8.2,12.9,22.5,36.0,61.0])
lr=st.linregress(np.log(X),np.log(Y))
tc=st.t.ppf(0.975,len(X)-2)
print("powerlaw b", repr(lr.slope), "a", repr(np.exp(lr.intercept)), "se", repr(lr.stderr), "ci", repr(lr.slope-tc*lr.stderr), repr(lr.slope+tc*lr.stderr), "r2", repr(lr.rvalue**2))
p=[0.1,0.4,0.5,0]; q=[0.3,0.3,0.2,0.2]
print("js", repr(jensenshannon(p,q,base=2)), repr(jensenshannon([1,2,3],[2,4,6],base=2)), repr(jensenshannon([1,0],[0,1],base=2)))
print("tcrit", repr(st.t.ppf(0.975,4)), repr(st.t.ppf(0.975,1000)))
