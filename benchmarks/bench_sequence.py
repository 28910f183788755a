"""Speed and accuracy of PASequence on an OCR-like chain problem generated here.

Each word is a sequence of 4 to 15 letters drawn from a letter-bigram Markov
chain (26 letters, peaked rows); each letter is a 16 x 8 binary image (128
pixel features): its letter's prototype with every pixel flipped with
probability ``--noise``. Prototypes share a common blob, so that letters look
alike and the transitions matter.

Reported, for each update rule (prediction-based and max-loss), without and
with averaging (``average=True``: predictions use the mean of the weights after
each word):

* training speed: letters per second of ``partial_fit`` over the training
  words (input conversion included), best of ``--repeats`` epochs;
* prediction speed: letters per second of ``predict`` on the test words;
* the online letter error rate of the first pass (``olearn.run``: each word is
  predicted before it is learned), and the test letter and word error rates
  after ``--epochs`` passes;
* for reference, the test letter error of a model without transitions (each
  letter predicted alone by the same learner on sequences of length 1);
* the test letter accuracy after ``--epochs`` passes of the bare Phi of the
  text (``fit_intercept=False, end_transition=False``), with a per-letter bias
  only, with an end transition only, and with both (the defaults), plain and
  averaged (``--only defaults`` prints this table alone).

    python benchmarks/bench_sequence.py            # 5,000 training words (~45,000 letters)
    python benchmarks/bench_sequence.py --quick    # 1,000 training words
"""

import argparse
import time

import numpy as np

import olearn
from olearn.sequence import PASequence, hamming_errors

N_LETTERS = 26
HEIGHT, WIDTH = 16, 8


def make_words(n_words, rng, prototypes, start, bigrams, noise):
    """Words of 4-15 letters from the bigram chain, as (X list of (T, 128) arrays, y list of letter arrays)."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    X, y = [], []
    for _ in range(n_words):
        T = int(rng.integers(4, 16))
        word = np.empty(T, dtype=np.int64)
        word[0] = rng.choice(N_LETTERS, p=start)
        for t in range(1, T):
            word[t] = rng.choice(N_LETTERS, p=bigrams[word[t - 1]])
        pixels = prototypes[word] ^ (rng.random((T, HEIGHT * WIDTH)) < noise)
        X.append(pixels.astype(np.float64))
        y.append(letters[word])
    return X, y


def make_problem(n_train, n_test, noise, seed):
    rng = np.random.default_rng(seed)
    blob = rng.random(HEIGHT * WIDTH) < 0.4
    # each letter redraws a fifth of the common blob's pixels
    redraw = rng.random((N_LETTERS, HEIGHT * WIDTH)) < 0.2
    prototypes = np.where(redraw, rng.random((N_LETTERS, HEIGHT * WIDTH)) < 0.4, blob)
    start = rng.dirichlet(np.ones(N_LETTERS))
    bigrams = rng.dirichlet(np.full(N_LETTERS, 0.1), size=N_LETTERS)
    train = make_words(n_train, rng, prototypes, start, bigrams, noise)
    test = make_words(n_test, rng, prototypes, start, bigrams, noise)
    return train, test


def letters_per_second(fn, n_letters, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return n_letters / best


def error_rates(model, X, y):
    errors = hamming_errors(y, model.predict(X))
    return errors.sum() / sum(len(s) for s in y), np.mean(errors > 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-train", type=int, default=5000)
    parser.add_argument("--n-test", type=int, default=2000)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--noise", type=float, default=0.2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="1,000 training and 500 test words")
    parser.add_argument("--only", default="speed,defaults", help="comma-separated sections: speed,defaults")
    args = parser.parse_args()
    only = set(args.only.split(","))
    if args.quick:
        args.n_train, args.n_test = 1000, 500
    (X, y), (X_test, y_test) = make_problem(args.n_train, args.n_test, args.noise, args.seed)
    n_letters = sum(len(s) for s in y)
    n_test_letters = sum(len(s) for s in y_test)
    print(f"{args.n_train} training words ({n_letters} letters), {args.n_test} test words ({n_test_letters} letters), "
          f"26 labels, 128 binary features, pixel noise {args.noise}")

    if "speed" in only:
        speed_table(X, y, X_test, y_test, args)
    if "defaults" in only:
        defaults_table(X, y, X_test, y_test, args.epochs)


def defaults_table(X, y, X_test, y_test, epochs):
    """Test letter accuracy of the bare Phi, + a per-letter bias, + an end transition, and both (the defaults)."""
    print(f"test letter accuracy after {epochs} passes (partial_fit, in order)")
    print(f"{'features':<34}{'plain':>8}{'averaged':>10}")
    for label, bias, end in (("bare Phi (Eq. 59)", False, False), ("+ per-letter bias", True, False),
                             ("+ end transition", False, True), ("both (the defaults)", True, True)):
        accuracies = []
        for average in (False, True):
            model = PASequence(fit_intercept=bias, end_transition=end, average=average)
            for _ in range(epochs):
                model.partial_fit(X, y)
            accuracies.append(1.0 - error_rates(model, X_test, y_test)[0])
        print(f"{label:<34}{accuracies[0]:>8.4f}{accuracies[1]:>10.4f}")


def speed_table(X, y, X_test, y_test, args):
    n_letters = sum(len(s) for s in y)
    n_test_letters = sum(len(s) for s in y_test)
    # load the compiled kernels before timing
    PASequence(update="max-loss").partial_fit(X[:2], y[:2]).predict(X[:2])
    PASequence().partial_fit(X[:2], y[:2])

    print(f"{'update':<12}{'average':>8}{'train letters/s':>17}{'predict letters/s':>19}{'online err':>12}"
          f"{'test letter err':>17}{'test word err':>15}")
    for update in ("prediction", "max-loss"):
        for average in (False, True):
            model = PASequence(variant="pa1", C=1.0, update=update, average=average)
            online = olearn.run(model, X, y)
            online_error = hamming_errors(y, online.predictions).sum() / n_letters
            for _ in range(args.epochs - 1):
                model.partial_fit(X, y)
            letter_error, word_error = error_rates(model, X_test, y_test)
            train_speed = letters_per_second(
                lambda u=update, a=average: PASequence(update=u, average=a).partial_fit(X, y), n_letters, args.repeats
            )
            predict_speed = letters_per_second(lambda m=model: m.predict(X_test), n_test_letters, args.repeats)
            print(f"{update:<12}{str(average):>8}{train_speed:>17,.0f}{predict_speed:>19,.0f}{online_error:>12.4f}"
                  f"{letter_error:>17.4f}{word_error:>15.4f}")

    alone = PASequence(variant="pa1", C=1.0)
    singles_X = [row[None, :] for s in X for row in s]
    singles_y = [[label] for s in y for label in s]
    for _ in range(args.epochs):
        alone.partial_fit(singles_X, singles_y)
    letter_error, _ = error_rates(alone, [row[None, :] for s in X_test for row in s],
                                  [[label] for s in y_test for label in s])
    print(f"without transitions (each letter alone): test letter error {letter_error:.4f}")


if __name__ == "__main__":
    main()
