"""Jepsen set histories (history.edn: :add of unique integers, :read of
the whole set), as Jepsen's set workloads write them.

usage: python3 docs/bench/set_adds.py CLIENTS OPS_PER_CLIENT SEED [lost]

Each client adds (99.9%) and reads (0.1%, each read the whole set) one atomic set; each op takes
effect at a random point of its interval, so the history is linearizable,
and the last client to finish reads once more at the end. With `lost`, an
element some earlier read returned is missing from the final read. The
same arguments give the same file.
"""
import random, sys, heapq


def gen(clients, per, seed, lost=False):
    rnd = random.Random(seed)
    state = set()
    q, seq, counts, lines, t_end = [], 0, [0] * clients, [], 0
    seen = []
    for c in range(clients):
        heapq.heappush(q, (rnd.randint(0, 5), seq, 'invoke', c, None)); seq += 1
    n = 0
    while q:
        t, _, kind, c, op = heapq.heappop(q)
        t_end = max(t_end, t)
        if kind == 'invoke':
            if counts[c] == per:
                continue
            counts[c] += 1
            if rnd.random() < 0.999:
                op = ['add', n, None]; n += 1
            else:
                op = ['read', None, None]
            lines.append((t, c, 'invoke', op[0], op[1]))
            heapq.heappush(q, (t + rnd.randint(1, 20), seq, 'apply', c, op)); seq += 1
        elif kind == 'apply':
            if op[0] == 'add':
                state.add(op[1])
            else:
                op[2] = sorted(state)
                seen.extend(op[2][-1:])
            heapq.heappush(q, (t + rnd.randint(1, 20), seq, 'complete', c, op)); seq += 1
        else:
            lines.append((t, c, 'ok', op[0], op[1] if op[0] == 'add' else op[2]))
            heapq.heappush(q, (t + rnd.randint(0, 5), seq, 'invoke', c, None)); seq += 1
    final = sorted(state)
    if lost and seen:
        final.remove(seen[len(seen) // 2])
    lines.append((t_end + 1, 0, 'invoke', 'read', None))
    lines.append((t_end + 2, 0, 'ok', 'read', final))
    out = []
    for i, (t, c, typ, f, v) in enumerate(lines):
        if v is None:
            val = 'nil'
        elif isinstance(v, list):
            val = '#{' + ' '.join(map(str, v)) + '}'
        else:
            val = str(v)
        out.append(f'{{:type :{typ}, :f :{f}, :value {val}, :process {c}, :time {t * 1000000}, :index {i}}}')
    return "\n".join(out) + "\n"


clients, per, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sys.stdout.write(gen(clients, per, seed, len(sys.argv) > 4 and sys.argv[4] == 'lost'))
