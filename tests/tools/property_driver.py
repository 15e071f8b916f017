"""The driver loop the property tests share: the command line (ASSETFORGE,
--cases, --seed, --keep), one seeded generator for the whole run so that a
seed names the same cases every time, a fresh work folder per case, and the
record of failures (printed, their files kept on --keep). A case that raises
counts as failed: a crash of a generator or a reader is not a pass."""
import argparse, os, random, shutil, tempfile


def drive(one_case, prefix, crashed, describe):
    """Run the cases; the process's exit code (1 when any failed).

    one_case(assetforge, rnd, work) -> None on success, else what describe() reads;
    crashed(i, exception) -> the same for a case that raised;
    describe(bad) -> the text after "FAIL case N: "."""
    ap = argparse.ArgumentParser()
    ap.add_argument("assetforge")
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="folder for failing cases' files")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    failures = 0
    for i in range(a.cases):
        work = tempfile.mkdtemp(prefix=prefix)
        try:
            bad = one_case(a.assetforge, rnd, work)
        except Exception as e:
            bad = crashed(i, e)
        if bad:
            failures += 1
            print("FAIL case %d: %s" % (i, describe(bad)))
            if a.keep:
                shutil.copytree(work, os.path.join(a.keep, "case%d" % i))
        shutil.rmtree(work, ignore_errors=True)
    print("%d cases, %d failed (seed %d)" % (a.cases, failures, a.seed))
    return 1 if failures else 0
