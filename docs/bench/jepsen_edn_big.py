"""A large Jepsen history.edn of one cas-register, one op map a line.

usage: python3 docs/bench/jepsen_edn_big.py OUT SEED [--mb MB] [--linearizable]

PROCESSES client processes run :read, :write and :cas against one atomic
register; each op takes effect at a random point of its interval. Writes
and cas set values of their own (a counter), so `dst check` decides the
history by the reads each write explains, without a search. A cas whose
old value is not the register's ends :fail; some ops time out and end
:info (half of them took effect), after which Jepsen gives the process a
new number. The nemesis starts and stops partitions now and then. Lines
are written until the file holds about MB megabytes (default 200); ops
still open then stay open. Without --linearizable, one read past the
middle returns the value the register held ten writes before, so the
history is not linearizable. The same arguments give the same file.
"""
import heapq
import random
import sys

PROCESSES = 10


def generate(out, seed, target_bytes, linearizable):
    rnd = random.Random(seed)
    value = None
    history = []  # every value the register held, oldest first
    next_value = 0
    written = 0
    index = 0
    stale_done = linearizable
    # (time, seq, what, slot): what is 'invoke', 'apply' or 'complete'.
    q = []
    seq = 0
    process = list(range(PROCESSES))
    op = [None] * PROCESSES  # slot -> [f, invoke value, result, info]
    for slot in range(PROCESSES):
        heapq.heappush(q, (rnd.randint(0, 50), seq, 'invoke', slot))
        seq += 1
    nemesis_at = 10_000

    def emit(t, p, kind, f, v):
        nonlocal written, index
        line = '{:index %d, :time %d, :type :%s, :process %s, :f :%s, :value %s}\n' % (
            index, t * 1000, kind, p, f, v)
        out.write(line)
        written += len(line)
        index += 1

    def edn(v):
        return 'nil' if v is None else str(v)

    while q and written < target_bytes:
        t, _, what, slot = heapq.heappop(q)
        if t >= nemesis_at:
            start = (nemesis_at // 10_000) % 2 == 1
            f = 'start' if start else 'stop'
            v = '[:isolated {"n1" #{"n2" "n3"}, "n4" #{"n5"}}]' if start else 'nil'
            emit(t, ':nemesis', 'invoke', f, 'nil')
            emit(t, ':nemesis', 'info', f, v)
            nemesis_at += 10_000
        p = process[slot]
        if what == 'invoke':
            r = rnd.random()
            if r < 0.5:
                f, v = 'read', None
            elif r < 0.8:
                f, v = 'write', next_value
                next_value += 1
            else:
                old = value if rnd.random() < 0.6 else rnd.choice(history[-20:] or [None])
                f, v = 'cas', (old, next_value)
                next_value += 1
            info = rnd.random() < 0.03
            op[slot] = [f, v, None, info]
            if f == 'cas':
                emit(t, p, 'invoke', f, '[%s %s]' % (edn(v[0]), edn(v[1])))
            else:
                emit(t, p, 'invoke', f, edn(v))
            heapq.heappush(q, (t + rnd.randint(1, 40), seq, 'apply', slot))
        elif what == 'apply':
            f, v, _, info = op[slot]
            if info and rnd.random() < 0.5:
                pass  # timed out before it took effect
            elif f == 'read':
                result = value
                if not stale_done and written > target_bytes // 2 and len(history) > 10:
                    result = history[-11]
                    stale_done = True
                op[slot][2] = ('ok', result)
            elif f == 'write':
                value = v
                history.append(value)
                op[slot][2] = ('ok', v)
            else:
                if value == v[0]:
                    value = v[1]
                    history.append(value)
                    op[slot][2] = ('ok', v)
                else:
                    op[slot][2] = ('fail', v)
            heapq.heappush(q, (t + rnd.randint(1, 40), seq, 'complete', slot))
        else:
            f, v, result, info = op[slot]
            if info:
                shown = '[%s %s]' % (edn(v[0]), edn(v[1])) if f == 'cas' else edn(v)
                emit(t, p, 'info', f, shown)
                process[slot] += PROCESSES
            else:
                kind, got = result
                if f == 'cas':
                    emit(t, p, kind, f, '[%s %s]' % (edn(got[0]), edn(got[1])))
                else:
                    emit(t, p, kind, f, edn(got))
            heapq.heappush(q, (t + rnd.randint(0, 20), seq, 'invoke', slot))
        seq += 1


def main(argv):
    args, mb, linearizable = [], 200, False
    it = iter(argv)
    for a in it:
        if a == '--mb':
            mb = int(next(it, '200'))
        elif a == '--linearizable':
            linearizable = True
        else:
            args.append(a)
    if len(args) != 2:
        sys.exit(__doc__)
    with open(args[0], 'w') as out:
        generate(out, int(args[1]), mb << 20, linearizable)


if __name__ == '__main__':
    main(sys.argv[1:])
