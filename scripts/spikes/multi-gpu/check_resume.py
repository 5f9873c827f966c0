# Used by measure.sh (issue #47).
# After a kill -9 and a resume: every line of the killed run's log is in the final log, no candidate
# of a problem was measured twice, and the results hold every problem.
import json, sys
killed_log, final_log, results, problems = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def records(path):
    out = []
    for line in open(path):
        line = line.strip()
        if not line: continue
        try: j = json.loads(line)
        except ValueError: out.append(('torn', line)); continue
        if j.get('type') == 'evaluation': out.append(j)
    return out
def key(j): return (j.get('m'), j.get('n'), j.get('k'), j.get('layout'), j.get('batch'), j['name'])
killed = [r for r in records(killed_log) if isinstance(r, dict)]
final = [r for r in records(final_log) if isinstance(r, dict)]
torn = [r for r in records(final_log) if not isinstance(r, dict)]
final_lines = set(json.dumps(r, sort_keys=True) for r in final)
lost = sum(1 for r in killed if json.dumps(r, sort_keys=True) not in final_lines)
keys = [key(r) for r in final]
dupes = len(keys) - len(set(keys))
entries = json.load(open(results))['entries']
print(f"killed run's log: {len(killed)} evaluations; final log: {len(final)} evaluations, {len(torn)} torn line(s); "
      f"killed lines missing from the final log: {lost}; candidates measured twice: {dupes}; "
      f"results: {len(entries)} of {problems} problems")
