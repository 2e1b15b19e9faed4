#!/usr/bin/env python3
"""Every `section.key` of torchtitan's TOML job configuration at one tag: the
fields of each dataclass that JobConfig holds as a section
(torchtitan/config/job_config.py).

    python3 torchtitan-keys.py TORCHTITAN_GIT_DIR TAG > keys.txt
"""
import ast, subprocess, sys

repo, tag = sys.argv[1:3]
commit = subprocess.run(["git", "-C", repo, "rev-parse", tag + "^{commit}"], capture_output=True, text=True,
                        check=True).stdout.strip()
src = subprocess.run(["git", "-C", repo, "show", f"{tag}:torchtitan/config/job_config.py"], capture_output=True,
                     text=True, check=True).stdout
tree = ast.parse(src)
classes = {}
for node in tree.body:
    if isinstance(node, ast.ClassDef):
        classes[node.name] = [s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
print(f"# Every section.key of torchtitan's TOML job configuration at tag {tag}, commit {commit},")
print("# github.com/pytorch/torchtitan: the fields of each section class of JobConfig")
print("# (torchtitan/config/job_config.py); tests/data/torchtitan-keys.py regenerates it.")
def fields(prefix, cls):
    """section.key of every field of cls; a field that is itself a section
    class (quantize.linear.float8) also by its own fields."""
    for g in classes.get(cls, []):
        if g.target.id.startswith("_"):
            continue
        print(f"{prefix}.{g.target.id}")
        sub = g.annotation.id if isinstance(g.annotation, ast.Name) else None
        if sub in classes:
            fields(f"{prefix}.{g.target.id}", sub)


for f in classes["JobConfig"]:
    fields(f.target.id, f.annotation.id if isinstance(f.annotation, ast.Name) else None)
