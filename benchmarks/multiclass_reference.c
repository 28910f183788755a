/* Plain C reference for one progressive-validation pass of multi-prototype multiclass PA-I.
 *
 * Crammer et al. 2006, Sec. 7: on each row, s_a = w_a.x for the k classes; the
 * prediction is the top score (ties: lowest class index); the rival r is the
 * top-scoring wrong class (same tie rule); loss = max(0, 1 - (s_y - s_r));
 * tau = min(C, loss / (2 ||x||^2)) (0 when ||x|| = 0); w_y += tau x, w_r -= tau x.
 * Every class is known from the start, no intercept, w starts at 0. A round is a
 * mistake when some wrong class scores at least as high as the true one.
 *
 * The weights are stored feature-major, W[j * k + a], as olearn stores them.
 *
 * Input: a binary file written by bench_multiclass.py:
 *   int64 n_rows, int64 n_features, int64 k, int64 nnz,
 *   int64 indptr[n_rows + 1], int32 indices[nnz], float64 data[nnz], int64 labels[n_rows].
 * Usage: multiclass_reference STREAM.bin [-C c] [-r repeats] [-w weights_out]
 * Prints one line per repeat: "seconds=<wall> cpu=<thread cpu> mistakes=<n> updates=<n> loss=<sum>";
 * only the pass is timed (CPU time is less disturbed by other processes on a busy machine). weights_out receives the final W (feature-major, float64).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *read_exact(FILE *f, size_t size, const char *what) {
    void *p = malloc(size ? size : 1);
    if (!p || fread(p, 1, size, f) != size) {
        fprintf(stderr, "could not read %s (%zu bytes)\n", what, size);
        exit(2);
    }
    return p;
}

static double clock_seconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s STREAM.bin [-C c] [-r repeats] [-w weights_out]\n", argv[0]);
        return 2;
    }
    double C = 1.0;
    int repeats = 1;
    const char *weights_out = NULL;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-C")) C = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-r")) repeats = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-w")) weights_out = argv[i + 1];
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    int64_t header[4];
    if (fread(header, sizeof(int64_t), 4, f) != 4) { fprintf(stderr, "bad header\n"); return 2; }
    int64_t n = header[0], d = header[1], k = header[2], nnz = header[3];
    int64_t *indptr = read_exact(f, sizeof(int64_t) * (n + 1), "indptr");
    int32_t *indices = read_exact(f, sizeof(int32_t) * nnz, "indices");
    double *data = read_exact(f, sizeof(double) * nnz, "data");
    int64_t *labels = read_exact(f, sizeof(int64_t) * n, "labels");
    fclose(f);
    double *W = malloc(sizeof(double) * d * k);
    double *s = malloc(sizeof(double) * k);
    for (int rep = 0; rep < repeats; rep++) {
        memset(W, 0, sizeof(double) * d * k);
        long mistakes = 0, updates = 0;
        double total_loss = 0.0;
        double t0 = clock_seconds(CLOCK_MONOTONIC), c0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
        for (int64_t i = 0; i < n; i++) {
            for (int64_t a = 0; a < k; a++) s[a] = 0.0;
            double sq = 0.0;
            for (int64_t p = indptr[i]; p < indptr[i + 1]; p++) {
                const double v = data[p];
                const double *row = W + (int64_t)indices[p] * k;
                sq += v * v;
                for (int64_t a = 0; a < k; a++) s[a] += row[a] * v;
            }
            int64_t y = labels[i], r = -1;
            for (int64_t a = 0; a < k; a++)
                if (a != y && (r < 0 || s[a] > s[r])) r = a;
            if (s[r] >= s[y]) mistakes++;
            double loss = 1.0 - (s[y] - s[r]);
            if (loss > 0.0 && sq > 0.0) {
                double tau = loss / (2.0 * sq);
                if (tau > C) tau = C;
                for (int64_t p = indptr[i]; p < indptr[i + 1]; p++) {
                    double *row = W + (int64_t)indices[p] * k;
                    row[y] += tau * data[p];
                    row[r] -= tau * data[p];
                }
                updates++;
            }
            if (loss > 0.0) total_loss += loss;
        }
        double t1 = clock_seconds(CLOCK_MONOTONIC), c1 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
        printf("seconds=%.6f cpu=%.6f mistakes=%ld updates=%ld loss=%.6f\n", t1 - t0, c1 - c0, mistakes, updates,
               total_loss);
    }
    if (weights_out) {
        FILE *w = fopen(weights_out, "wb");
        fwrite(W, sizeof(double), d * k, w);
        fclose(w);
    }
    return 0;
}
