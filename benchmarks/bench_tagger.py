"""A POS-like tagger on generated CoNLL data: every route of PASequence side by side in one run (issue #34).

The data: sentences of 5 to 35 tokens from a tag bigram chain (``--tags`` tags,
peaked rows), each token a word of its tag's Zipf-distributed vocabulary,
about a fifth of the words shared by two tags (the ambiguity a tagger must
resolve from the context). A token line holds ten features (the word, its
prefixes and suffixes of 2 and 3 letters, its shape, the words before and
after and the pairs they make with the word) and its tag, CoNLL style; the
features are hashed into 2^``--bits`` columns.

Measured, each best of ``--repeats`` (seconds; the first use of every kernel
is taken before timing):

* ``library CSR``: ``fit`` (``--passes`` shuffled passes, ``tol=None``) on the
  sequences ``olearn.data.load_conll`` read, reading included;
* ``library dicts, vocabulary`` and ``hashed``: ``fit`` on the same
  sentences given as dict rows (names), ``n_bits=None`` and ``n_bits=--bits``;
* ``CLI``: ``olearn run --algo pa1-sequence --passes P --holdout-off --quiet`` on
  the file, a fresh process (its imports and the loading of its compiled
  kernels included), interleaved with the library route run the same way
  (``python -c`` of ``load_conll`` and ``fit``);
* ``learn_one``: the first sequences one by one, as each brings new tags;
* ``predict_one`` / ``predict`` of 50 sentences, plain and averaged;
* the test token accuracy of the defaults (a per-tag bias and an end
  transition) against the bare Phi of the text (``fit_intercept=False,
  end_transition=False``) and each of the two alone, plain and averaged.

    python benchmarks/bench_tagger.py                  # 16,000 sentences, 48 tags, 2^20 columns
    python benchmarks/bench_tagger.py --quick          # 2,000 sentences, 2^18 columns
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "_work")
LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def make_corpus(n_sentences, n_tags, seed):
    """(sentences of words, their tags): a tag bigram chain emitting Zipf words, some words shared by two tags."""
    rng = np.random.default_rng(seed)
    start = rng.dirichlet(np.ones(n_tags))
    bigrams = rng.dirichlet(np.full(n_tags, 0.08), size=n_tags)
    sizes = rng.integers(20, 400, size=n_tags)
    vocabularies = [["".join(rng.choice(LETTERS, size=rng.integers(2, 10))) for _ in range(size)] for size in sizes]
    for tag in range(n_tags):  # a fifth of each vocabulary is also another tag's
        other = int(rng.integers(n_tags))
        shared = rng.choice(len(vocabularies[other]), size=sizes[tag] // 5)
        vocabularies[tag][: shared.size] = [vocabularies[other][j] for j in shared]
    zipf = [1.0 / np.arange(1, size + 1) for size in sizes]
    zipf = [p / p.sum() for p in zipf]
    sentences, tags = [], []
    for _ in range(n_sentences):
        length = int(rng.integers(5, 36))
        sequence = [int(rng.choice(n_tags, p=start))]
        for _ in range(length - 1):
            sequence.append(int(rng.choice(n_tags, p=bigrams[sequence[-1]])))
        sentences.append([vocabularies[t][rng.choice(sizes[t], p=zipf[t])] for t in sequence])
        tags.append([f"T{t:02d}" for t in sequence])
    return sentences, tags


def token_features(words, t):
    """The names of token t's features."""
    word = words[t]
    before = words[t - 1] if t else "<s>"
    after = words[t + 1] if t + 1 < len(words) else "</s>"
    shape = "".join("x" if c.islower() else "X" for c in word[:4])
    return [f"w={word}", f"p2={word[:2]}", f"p3={word[:3]}", f"s2={word[-2:]}", f"s3={word[-3:]}", f"shape={shape}",
            f"w-1={before}", f"w+1={after}", f"w-1w={before}|{word}", f"ww+1={word}|{after}"]


def write_conll(path, sentences, tags):
    with open(path, "w", encoding="utf-8") as f:
        for words, sequence in zip(sentences, tags):
            for t, tag in enumerate(sequence):
                f.write(" ".join(token_features(words, t)) + " " + tag + "\n")
            f.write("\n")


def dict_rows(sentences):
    return [[dict.fromkeys(token_features(words, t), 1.0) for t in range(len(words))] for words in sentences]


def best_of(repeats, fn):
    best, result = np.inf, None
    for _ in range(repeats):
        tick = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - tick)
    return best, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=16_000)
    parser.add_argument("--test-sentences", type=int, default=2_000)
    parser.add_argument("--tags", type=int, default=48)
    parser.add_argument("--bits", type=int, default=20)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="2,000 sentences, 2^18 columns")
    parser.add_argument("--only", default="", help="comma-separated sections: csr,dicts,cli,one,predict,defaults")
    args = parser.parse_args()
    if args.quick:
        args.sentences, args.test_sentences, args.bits = 2_000, 500, 18
    only = set(args.only.split(",")) if args.only else {"csr", "dicts", "cli", "one", "predict", "defaults"}

    from olearn.data import load_conll
    from olearn.sequence import PASequence, hamming_errors

    os.makedirs(WORK, exist_ok=True)
    sentences, tags = make_corpus(args.sentences + args.test_sentences, args.tags, args.seed)
    train = os.path.join(WORK, f"tagger_{args.sentences}_{args.tags}_{args.seed}.conll")
    test = os.path.join(WORK, f"tagger_{args.sentences}_{args.tags}_{args.seed}_test.conll")
    write_conll(train, sentences[: args.sentences], tags[: args.sentences])
    write_conll(test, sentences[args.sentences :], tags[args.sentences :])
    X, y = load_conll(train, n_bits=args.bits)
    X_test, y_test = load_conll(test, n_bits=args.bits)
    n_tokens = sum(len(t) for t in y)
    print(f"{args.sentences:,} training sentences ({n_tokens:,} tokens), {args.test_sentences:,} test sentences, "
          f"{len({t for s in y for t in s})} tags, 10 features per token hashed into 2^{args.bits} columns, "
          f"{args.passes} passes; best of {args.repeats}; load average {os.getloadavg()[0]:.1f}")
    # every kernel compiled (or loaded from the cache) before timing
    for average in (False, True):
        warm = PASequence(n_bits=args.bits, average=average, max_iter=1, tol=None).fit(X[:20], y[:20])
        warm.predict(X[:2])
        warm.predict_one(X[0])

    def fit(data, n_bits, **params):
        return PASequence(n_bits=n_bits, max_iter=args.passes, tol=None, random_state=0, **params).fit(data, y)

    def accuracy(model, data=X_test, truth=y_test):
        return 1.0 - hamming_errors(truth, model.predict(data)).sum() / sum(len(t) for t in truth)

    rows = []
    if "csr" in only or "cli" in only:
        seconds, model = best_of(args.repeats, lambda: fit(load_conll(train, n_bits=args.bits)[0], args.bits))
        rows.append(("library CSR (load_conll + fit)", seconds, accuracy(model)))
        library = seconds
    if "dicts" in only:
        test_dicts = dict_rows(sentences[args.sentences :])
        dicts = dict_rows(sentences[: args.sentences])
        for label, n_bits in (("library dicts, vocabulary", None), ("library dicts, hashed", args.bits)):
            seconds, model = best_of(args.repeats, lambda b=n_bits: fit(dicts, b))
            rows.append((label + " (fit)", seconds, accuracy(model, test_dicts)))
    if "cli" in only:
        command = [sys.executable, "-m", "olearn", "run", "--algo", "pa1-sequence", "--bits", str(args.bits),
                   "--passes", str(args.passes), "--holdout-off", "--quiet", train]
        script = ("import sys; from olearn.data import load_conll; from olearn.sequence import PASequence; "
                  f"X, y = load_conll(sys.argv[1], n_bits={args.bits}); "
                  f"PASequence(n_bits={args.bits}, max_iter={args.passes}, tol=None, random_state=0).fit(X, y)")
        fresh = [sys.executable, "-c", script, train]
        seconds = fresh_seconds = np.inf
        for _ in range(args.repeats):  # interleaved
            seconds = min(seconds, best_of(1, lambda: subprocess.run(command, check=True, capture_output=True))[0])
            fresh_seconds = min(fresh_seconds, best_of(1, lambda: subprocess.run(fresh, check=True))[0])
        rows.append(("library CSR, a fresh process (python -c ...)", fresh_seconds, float("nan")))
        rows.append(("CLI olearn run, a fresh process", seconds, float("nan")))
        print(f"CLI / library CSR: {seconds / library:.2f}x (both in a fresh process: {seconds / fresh_seconds:.2f}x)")
    for label, seconds, acc in rows:
        print(f"{label:<58}{seconds:>8.2f} s{n_tokens * args.passes / seconds:>12,.0f} tokens/s"
              f"   test accuracy {acc:.4f}")

    if "one" in only:
        est = PASequence(n_bits=args.bits)
        n = 400
        seconds, _ = best_of(1, lambda: [est.learn_one(x, t) for x, t in zip(X[:n], y[:n])])
        try:
            declared = PASequence(n_bits=args.bits, classes=sorted({tag for s in y for tag in s}))
            declared_seconds, _ = best_of(1, lambda: [declared.learn_one(x, t) for x, t in zip(X[:n], y[:n])])
        except TypeError:  # an olearn without classes=
            declared_seconds = float("nan")
        print(f"learn_one, first {n} sentences ({len(est.classes_)} tags met): {seconds:.3f} s; tags declared "
              f"(classes=): {declared_seconds:.3f} s")

    if "predict" in only:
        for average in (False, True):
            model = fit(X, args.bits, average=average)
            one, _ = best_of(args.repeats, lambda m=model: [m.predict_one(x) for x in X_test[:50]])
            batch, _ = best_of(args.repeats, lambda m=model: m.predict(X_test[:50]))
            print(f"average={average!s:<6} predict_one x 50: {one * 1e3:8.1f} ms   predict(50): {batch * 1e3:8.1f} ms"
                  f"   test accuracy {accuracy(model):.4f}")

    if "defaults" in only:
        print(f"{'features':<34}{'plain':>8}{'averaged':>10}   test token accuracy")
        for label, bias, end in (("bare Phi (Eq. 59)", False, False), ("+ per-tag bias", True, False),
                                 ("+ end transition", False, True), ("both (the defaults)", True, True)):
            plain, averaged = (accuracy(fit(X, args.bits, fit_intercept=bias, end_transition=end, average=average))
                               for average in (False, True))
            print(f"{label:<34}{plain:>8.4f}{averaged:>10.4f}")

if __name__ == "__main__":
    main()
