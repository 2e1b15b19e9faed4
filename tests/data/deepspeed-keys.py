#!/usr/bin/env python3
"""The DeepSpeed configuration keys parplan may write, at one DeepSpeed tag:
every top-level key named by a string constant of deepspeed/runtime/constants.py,
and `section.field` for the fields of the fp16, bf16 and zero_optimization
sections' config classes (deepspeed/runtime/precision_config.py,
deepspeed/runtime/zero/config.py).

    python3 deepspeed-keys.py DEEPSPEED_GIT_DIR TAG > keys.txt
"""
import ast, re, subprocess, sys

repo, tag = sys.argv[1:3]
commit = subprocess.run(["git", "-C", repo, "rev-parse", tag + "^{commit}"], capture_output=True, text=True,
                        check=True).stdout.strip()

def show(path):
    return subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], capture_output=True, text=True,
                          check=True).stdout

keys = set()
for node in ast.parse(show("deepspeed/runtime/constants.py")).body:
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        v = node.value.value
        if all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets) and re.fullmatch(r"[a-z0-9_]+", v):
            keys.add(v)

def fields(path, cls):
    out = set()
    for node in ast.walk(ast.parse(show(path))):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for s in node.body:
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                    out.add(s.target.id)
                    # pydantic aliases: Field(..., alias="...")
                    if isinstance(s.value, ast.Call):
                        for kw in s.value.keywords:
                            if kw.arg == "alias" and isinstance(kw.value, ast.Constant):
                                out.add(kw.value.value)
    return out

for section, path, cls in [("fp16", "deepspeed/runtime/precision_config.py", "DeepSpeedFP16Config"),
                           ("bf16", "deepspeed/runtime/precision_config.py", "DeepSpeedBF16Config"),
                           ("zero_optimization", "deepspeed/runtime/zero/config.py", "DeepSpeedZeroConfig")]:
    for f in fields(path, cls):
        keys.add(f"{section}.{f}")

print(f"# DeepSpeed configuration keys at tag {tag}, commit {commit}, github.com/deepspeedai/DeepSpeed:")
print("# the top-level keys of deepspeed/runtime/constants.py and the fields of the fp16, bf16 and")
print("# zero_optimization config classes; tests/data/deepspeed-keys.py regenerates it.")
for k in sorted(keys):
    print(k)
