"""Running a reproduction's independent jobs (repetitions, grid points) on workers, with a progress bar."""

import numbers


def check_repetitions(n_repetitions):
    """``n_repetitions`` (a figure's number of repetitions) as an int >= 1; ValueError naming it otherwise."""
    if isinstance(n_repetitions, bool) or not isinstance(n_repetitions, numbers.Integral) or n_repetitions < 1:
        raise ValueError(f"n_repetitions must be an integer >= 1; got {n_repetitions!r}")
    return int(n_repetitions)


def progress_bar(enabled):
    """A rich progress bar on stderr, drawn only on an interactive terminal."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, transient=True, disable=not (enabled and console.is_terminal),
    )


def in_parallel(function, jobs, n_jobs, bar, description):
    """``[function(*job) for job in jobs]`` on ``n_jobs`` joblib workers, in order, advancing ``bar``.

    The results do not depend on ``n_jobs``: every job carries its own seed.
    Under ``joblib.parallel_backend("dask")`` the jobs run on a Dask cluster.
    """
    from joblib import Parallel, delayed

    task = bar.add_task(description, total=len(jobs))
    results = []
    for result in Parallel(n_jobs=n_jobs, return_as="generator")(delayed(function)(*job) for job in jobs):
        results.append(result)
        bar.advance(task)
    return results
