"""Two `kfuse fuse -i` runs of different fusions of one file, the second
started while the first holds its commit (the fault injector makes the
first's first rename wait a second): one rewrites the file, the other
writes nothing and says why, and no edit is lost silently.

  concurrent_inplace.py FAULTS KFUSE DIR
prints "first: EXIT", "second: EXIT", the second's error ids, and whether
app.cu holds the first run's rewrite, the second's or neither."""
import os
import re
import subprocess
import sys
import time

faults, kfuse, work = sys.argv[1:4]


def start(fusion, fault):
    env = dict(os.environ, LD_PRELOAD=faults)
    if fault:
        env["KFUSE_FAULT"] = fault
    return subprocess.Popen([kfuse, "fuse", "app.yaml", "--fusion", fusion, "-o", f"{fusion}.cu",
                             "--header", f"{fusion}.h", "--rewrite-launches", "-i"],
                            cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


first = start("first", "rename:1:SLEEP")
time.sleep(0.4)
second = start("second", None)
out_first, _ = first.communicate()
out_second, _ = second.communicate()
print("first:", first.returncode)
print("second:", second.returncode)
for Id in sorted(set(re.findall(r"\[(kfuse-[a-z-]+)\]", out_second))):
    print("second says:", Id)
text = open(os.path.join(work, "app.cu")).read()
print("app.cu holds:", "first" if "first_launch" in text else "second" if "second_launch" in text
      else "neither")
