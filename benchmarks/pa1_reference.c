/* Plain C reference for one progressive-validation pass of PA-I.
 *
 * Crammer et al. 2006, PA-I: on each row, score = w.x, loss = max(0, 1 - y score),
 * tau = min(C, loss / ||x||^2) (0 when ||x|| = 0), w += tau y x. No intercept,
 * w starts at 0.
 *
 * Mistakes are counted with the rule olearn uses, so that the counts are identical:
 * by default a round is a mistake when y * score <= 0 (a zero score names no class);
 * with -s, when the predicted label (+1 iff score > 0, else -1) differs from y.
 * bench_core.py finds which rule the installed olearn applies and passes -s if needed.
 *
 * The arithmetic is done in the same order as olearn's kernel (the dot product
 * and ||x||^2 accumulated left to right in one loop, tau = loss / ||x||^2, then
 * the update), so with -ffp-contract=off (no fused multiply-add) both produce
 * bit-identical weights.
 *
 * Input: the binary file written by make_data.py (see its docstring).
 * Usage: pa1_reference STREAM.bin [-C c] [-r repeats] [-w weights_out] [-s]
 * Prints one line per repeat: "seconds=<wall> cpu=<cpu> mistakes=<n> updates=<n> loss=<sum>".
 * Only the pass is timed (clock_gettime: CLOCK_MONOTONIC for wall time,
 * CLOCK_THREAD_CPUTIME_ID for CPU time, which a busy machine disturbs less); w is reset to 0
 * between repeats outside the timed region. weights_out receives the final w as raw float64.
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

static void usage(const char *prog) {
    fprintf(stderr, "usage: %s STREAM.bin [-C c] [-r repeats] [-w weights_out] [-s]\n", prog);
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2) usage(argv[0]);
    double C = 1.0;
    int repeats = 1, sign_rule = 0;
    const char *weights_out = NULL;
    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "-C") == 0 && a + 1 < argc) C = atof(argv[++a]);
        else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc) repeats = atoi(argv[++a]);
        else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) weights_out = argv[++a];
        else if (strcmp(argv[a], "-s") == 0) sign_rule = 1;
        else usage(argv[0]);
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    char magic[8];
    int64_t header[3];
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "OLBENCH1", 8) != 0 || fread(header, 8, 3, f) != 3) {
        fprintf(stderr, "%s is not a make_data.py stream file\n", argv[1]);
        return 2;
    }
    const int64_t n = header[0], d = header[1], nnz = header[2];
    int64_t *indptr = read_exact(f, (size_t)(n + 1) * 8, "indptr");
    int32_t *indices = read_exact(f, (size_t)nnz * 4, "indices");
    double *data = read_exact(f, (size_t)nnz * 8, "data");
    double *y = read_exact(f, (size_t)n * 8, "y");
    fclose(f);
    double *w = malloc((size_t)d * sizeof(double));

    for (int r = 0; r < repeats; r++) {
        memset(w, 0, (size_t)d * sizeof(double));
        int64_t mistakes = 0, updates = 0;
        double total_loss = 0.0;
        const double t0 = clock_seconds(CLOCK_MONOTONIC), c0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
        for (int64_t i = 0; i < n; i++) {
            const int64_t lo = indptr[i], hi = indptr[i + 1];
            double dot = 0.0, sq = 0.0;
            for (int64_t k = lo; k < hi; k++) {
                const double v = data[k];
                dot += w[indices[k]] * v;
                sq += v * v;
            }
            const double yi = y[i];
            if (sign_rule ? (dot > 0.0 ? 1.0 : -1.0) != yi : yi * dot <= 0.0) mistakes++;
            const double margin = yi * dot;
            if (margin < 1.0 && sq > 0.0) {
                const double loss = 1.0 - margin;
                double tau = loss / sq;
                if (tau > C) tau = C;
                const double a = tau * yi;
                for (int64_t k = lo; k < hi; k++) w[indices[k]] += a * data[k];
                total_loss += loss;
                updates++;
            } else if (margin < 1.0) {
                total_loss += 1.0 - margin;
            }
        }
        const double t1 = clock_seconds(CLOCK_MONOTONIC), c1 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
        printf("seconds=%.6f cpu=%.6f mistakes=%lld updates=%lld loss=%.17g\n", t1 - t0, c1 - c0, (long long)mistakes,
               (long long)updates, total_loss);
    }
    if (weights_out) {
        FILE *out = fopen(weights_out, "wb");
        if (!out || fwrite(w, sizeof(double), (size_t)d, out) != (size_t)d) {
            perror(weights_out);
            return 2;
        }
        fclose(out);
    }
    return 0;
}
