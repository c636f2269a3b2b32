/* The workload of studies/llvm-versions.ini: 80 functions with loops, branches and a switch (generated; the
 * generator is in tests/e2e/test_realcc.sh, gen_c). */
struct s0 { int a[16]; double d; };
int f0(int *p, int n, struct s0 *q) {
  int acc = 0;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1000) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 0.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s1 { int a[16]; double d; };
int f1(int *p, int n, struct s1 *q) {
  int acc = 1;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1001) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 1.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s2 { int a[16]; double d; };
int f2(int *p, int n, struct s2 *q) {
  int acc = 2;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1002) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 2.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s3 { int a[16]; double d; };
int f3(int *p, int n, struct s3 *q) {
  int acc = 3;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1003) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 3.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s4 { int a[16]; double d; };
int f4(int *p, int n, struct s4 *q) {
  int acc = 4;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1004) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 4.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s5 { int a[16]; double d; };
int f5(int *p, int n, struct s5 *q) {
  int acc = 5;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1005) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 5.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s6 { int a[16]; double d; };
int f6(int *p, int n, struct s6 *q) {
  int acc = 6;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1006) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 6.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s7 { int a[16]; double d; };
int f7(int *p, int n, struct s7 *q) {
  int acc = 7;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1007) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 7.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s8 { int a[16]; double d; };
int f8(int *p, int n, struct s8 *q) {
  int acc = 8;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1008) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 8.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s9 { int a[16]; double d; };
int f9(int *p, int n, struct s9 *q) {
  int acc = 9;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1009) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 9.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s10 { int a[16]; double d; };
int f10(int *p, int n, struct s10 *q) {
  int acc = 10;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1010) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 10.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s11 { int a[16]; double d; };
int f11(int *p, int n, struct s11 *q) {
  int acc = 11;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1011) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 11.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s12 { int a[16]; double d; };
int f12(int *p, int n, struct s12 *q) {
  int acc = 12;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1012) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 12.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s13 { int a[16]; double d; };
int f13(int *p, int n, struct s13 *q) {
  int acc = 13;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1013) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 13.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s14 { int a[16]; double d; };
int f14(int *p, int n, struct s14 *q) {
  int acc = 14;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1014) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 14.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s15 { int a[16]; double d; };
int f15(int *p, int n, struct s15 *q) {
  int acc = 15;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1015) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 15.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s16 { int a[16]; double d; };
int f16(int *p, int n, struct s16 *q) {
  int acc = 16;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1016) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 16.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s17 { int a[16]; double d; };
int f17(int *p, int n, struct s17 *q) {
  int acc = 17;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1017) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 17.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s18 { int a[16]; double d; };
int f18(int *p, int n, struct s18 *q) {
  int acc = 18;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1018) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 18.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s19 { int a[16]; double d; };
int f19(int *p, int n, struct s19 *q) {
  int acc = 19;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1019) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 19.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s20 { int a[16]; double d; };
int f20(int *p, int n, struct s20 *q) {
  int acc = 20;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1020) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 20.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s21 { int a[16]; double d; };
int f21(int *p, int n, struct s21 *q) {
  int acc = 21;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1021) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 21.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s22 { int a[16]; double d; };
int f22(int *p, int n, struct s22 *q) {
  int acc = 22;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1022) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 22.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s23 { int a[16]; double d; };
int f23(int *p, int n, struct s23 *q) {
  int acc = 23;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1023) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 23.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s24 { int a[16]; double d; };
int f24(int *p, int n, struct s24 *q) {
  int acc = 24;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1024) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 24.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s25 { int a[16]; double d; };
int f25(int *p, int n, struct s25 *q) {
  int acc = 25;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1025) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 25.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s26 { int a[16]; double d; };
int f26(int *p, int n, struct s26 *q) {
  int acc = 26;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1026) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 26.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s27 { int a[16]; double d; };
int f27(int *p, int n, struct s27 *q) {
  int acc = 27;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1027) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 27.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s28 { int a[16]; double d; };
int f28(int *p, int n, struct s28 *q) {
  int acc = 28;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1028) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 28.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s29 { int a[16]; double d; };
int f29(int *p, int n, struct s29 *q) {
  int acc = 29;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1029) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 29.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s30 { int a[16]; double d; };
int f30(int *p, int n, struct s30 *q) {
  int acc = 30;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1030) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 30.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s31 { int a[16]; double d; };
int f31(int *p, int n, struct s31 *q) {
  int acc = 31;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1031) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 31.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s32 { int a[16]; double d; };
int f32(int *p, int n, struct s32 *q) {
  int acc = 32;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1032) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 32.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s33 { int a[16]; double d; };
int f33(int *p, int n, struct s33 *q) {
  int acc = 33;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1033) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 33.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s34 { int a[16]; double d; };
int f34(int *p, int n, struct s34 *q) {
  int acc = 34;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1034) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 34.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s35 { int a[16]; double d; };
int f35(int *p, int n, struct s35 *q) {
  int acc = 35;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1035) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 35.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s36 { int a[16]; double d; };
int f36(int *p, int n, struct s36 *q) {
  int acc = 36;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1036) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 36.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s37 { int a[16]; double d; };
int f37(int *p, int n, struct s37 *q) {
  int acc = 37;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1037) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 37.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s38 { int a[16]; double d; };
int f38(int *p, int n, struct s38 *q) {
  int acc = 38;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1038) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 38.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s39 { int a[16]; double d; };
int f39(int *p, int n, struct s39 *q) {
  int acc = 39;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1039) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 39.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s40 { int a[16]; double d; };
int f40(int *p, int n, struct s40 *q) {
  int acc = 40;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1040) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 40.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s41 { int a[16]; double d; };
int f41(int *p, int n, struct s41 *q) {
  int acc = 41;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1041) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 41.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s42 { int a[16]; double d; };
int f42(int *p, int n, struct s42 *q) {
  int acc = 42;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1042) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 42.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s43 { int a[16]; double d; };
int f43(int *p, int n, struct s43 *q) {
  int acc = 43;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1043) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 43.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s44 { int a[16]; double d; };
int f44(int *p, int n, struct s44 *q) {
  int acc = 44;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1044) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 44.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s45 { int a[16]; double d; };
int f45(int *p, int n, struct s45 *q) {
  int acc = 45;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1045) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 45.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s46 { int a[16]; double d; };
int f46(int *p, int n, struct s46 *q) {
  int acc = 46;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1046) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 46.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s47 { int a[16]; double d; };
int f47(int *p, int n, struct s47 *q) {
  int acc = 47;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1047) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 47.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s48 { int a[16]; double d; };
int f48(int *p, int n, struct s48 *q) {
  int acc = 48;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1048) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 48.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s49 { int a[16]; double d; };
int f49(int *p, int n, struct s49 *q) {
  int acc = 49;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1049) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 49.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s50 { int a[16]; double d; };
int f50(int *p, int n, struct s50 *q) {
  int acc = 50;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1050) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 50.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s51 { int a[16]; double d; };
int f51(int *p, int n, struct s51 *q) {
  int acc = 51;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1051) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 51.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s52 { int a[16]; double d; };
int f52(int *p, int n, struct s52 *q) {
  int acc = 52;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1052) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 52.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s53 { int a[16]; double d; };
int f53(int *p, int n, struct s53 *q) {
  int acc = 53;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1053) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 53.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s54 { int a[16]; double d; };
int f54(int *p, int n, struct s54 *q) {
  int acc = 54;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1054) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 54.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s55 { int a[16]; double d; };
int f55(int *p, int n, struct s55 *q) {
  int acc = 55;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1055) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 55.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s56 { int a[16]; double d; };
int f56(int *p, int n, struct s56 *q) {
  int acc = 56;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1056) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 56.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s57 { int a[16]; double d; };
int f57(int *p, int n, struct s57 *q) {
  int acc = 57;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1057) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 57.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s58 { int a[16]; double d; };
int f58(int *p, int n, struct s58 *q) {
  int acc = 58;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1058) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 58.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s59 { int a[16]; double d; };
int f59(int *p, int n, struct s59 *q) {
  int acc = 59;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1059) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 59.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s60 { int a[16]; double d; };
int f60(int *p, int n, struct s60 *q) {
  int acc = 60;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1060) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 60.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s61 { int a[16]; double d; };
int f61(int *p, int n, struct s61 *q) {
  int acc = 61;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1061) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 61.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s62 { int a[16]; double d; };
int f62(int *p, int n, struct s62 *q) {
  int acc = 62;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1062) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 62.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s63 { int a[16]; double d; };
int f63(int *p, int n, struct s63 *q) {
  int acc = 63;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1063) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 63.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s64 { int a[16]; double d; };
int f64(int *p, int n, struct s64 *q) {
  int acc = 64;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1064) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 64.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s65 { int a[16]; double d; };
int f65(int *p, int n, struct s65 *q) {
  int acc = 65;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1065) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 65.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s66 { int a[16]; double d; };
int f66(int *p, int n, struct s66 *q) {
  int acc = 66;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1066) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 66.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s67 { int a[16]; double d; };
int f67(int *p, int n, struct s67 *q) {
  int acc = 67;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1067) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 67.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s68 { int a[16]; double d; };
int f68(int *p, int n, struct s68 *q) {
  int acc = 68;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1068) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 68.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s69 { int a[16]; double d; };
int f69(int *p, int n, struct s69 *q) {
  int acc = 69;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1069) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 69.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s70 { int a[16]; double d; };
int f70(int *p, int n, struct s70 *q) {
  int acc = 70;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1070) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 70.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s71 { int a[16]; double d; };
int f71(int *p, int n, struct s71 *q) {
  int acc = 71;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1071) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 71.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s72 { int a[16]; double d; };
int f72(int *p, int n, struct s72 *q) {
  int acc = 72;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1072) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 72.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s73 { int a[16]; double d; };
int f73(int *p, int n, struct s73 *q) {
  int acc = 73;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 4 + q->a[k & 15];
    if (acc > 1073) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 73.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s74 { int a[16]; double d; };
int f74(int *p, int n, struct s74 *q) {
  int acc = 74;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 5 + q->a[k & 15];
    if (acc > 1074) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 74.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s75 { int a[16]; double d; };
int f75(int *p, int n, struct s75 *q) {
  int acc = 75;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 6 + q->a[k & 15];
    if (acc > 1075) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 75.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s76 { int a[16]; double d; };
int f76(int *p, int n, struct s76 *q) {
  int acc = 76;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 7 + q->a[k & 15];
    if (acc > 1076) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 76.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s77 { int a[16]; double d; };
int f77(int *p, int n, struct s77 *q) {
  int acc = 77;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 1 + q->a[k & 15];
    if (acc > 1077) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 77.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s78 { int a[16]; double d; };
int f78(int *p, int n, struct s78 *q) {
  int acc = 78;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 2 + q->a[k & 15];
    if (acc > 1078) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 78.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
struct s79 { int a[16]; double d; };
int f79(int *p, int n, struct s79 *q) {
  int acc = 79;
  for (int k = 0; k < n; k++) {
    acc += p[k] * 3 + q->a[k & 15];
    if (acc > 1079) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }
  q->d = acc * 0.5 + 79.25;
  switch (acc & 7) { case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }
  return acc;
}
