"""Single-key kv histories with appends, in porcupine's kv EDN format.

usage: python3 docs/bench/kv_appends.py CLIENTS OPS_PER_CLIENT SEED [stale]

Each client runs gets (40%), puts (15%) and appends (45%) of unique values
("x CLIENT N y") against one atomic store; each op takes effect at a
random point of its interval, so the history is linearizable. With
`stale`, one get past the middle returns the value of ten reads before.
The same arguments give the same file.
"""
import random, sys, heapq
def gen(clients, per, seed, stale=False):
    rnd = random.Random(seed)
    state = ""
    events = []  # (time, seq, kind, client, f, value)
    q = []
    seq = 0
    counts = [0]*clients
    for c in range(clients):
        heapq.heappush(q, (rnd.randint(0, 5), seq, 'invoke', c, None)); seq += 1
    lines = []
    stale_done = False
    reads = []
    while q:
        t, _, kind, c, op = heapq.heappop(q)
        if kind == 'invoke':
            if counts[c] == per: continue
            counts[c] += 1
            r = rnd.random()
            f = 'get' if r < 0.4 else ('put' if r < 0.55 else 'append')
            v = None if f == 'get' else f"x {c} {counts[c]} y"
            lines.append((f, c, 'invoke', v))
            heapq.heappush(q, (t + rnd.randint(1, 20), seq, 'apply', c, [f, v, None])); seq += 1
        elif kind == 'apply':
            f, v, _ = op
            if f == 'get':
                out = state
                if stale and not stale_done and counts[c] > per // 2 and len(reads) > 10:
                    out = reads[-10]; stale_done = out != state
                op[2] = out
                reads.append(state)
            elif f == 'put':
                state = v
            else:
                state = state + v
            heapq.heappush(q, (t + rnd.randint(1, 20), seq, 'complete', c, op)); seq += 1
        else:
            f, v, out = op
            lines.append((f, c, 'ok', out if f == 'get' else v))
            heapq.heappush(q, (t + rnd.randint(0, 5), seq, 'invoke', c, None)); seq += 1
    out = []
    for f, c, typ, v in lines:
        val = 'nil' if (v is None) else '"' + v + '"'
        out.append(f'{{:process {c}, :type :{typ}, :f :{f}, :key "0", :value {val}}}')
    return "\n".join(out) + "\n"
clients, per, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sys.stdout.write(gen(clients, per, seed, len(sys.argv) > 4))
