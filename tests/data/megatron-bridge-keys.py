#!/usr/bin/env python3
"""Every `section.field` a Megatron-Bridge recipe's ConfigContainer accepts as a
Hydra override (KEY=VALUE), at one Megatron-Bridge tag and the Megatron-LM
commit it pins: the dataclass fields of each section's class and its bases.

    python3 megatron-bridge-keys.py BRIDGE_GIT_DIR TAG MEGATRON_GIT_DIR > keys.txt
"""
import ast, subprocess, sys

bridge, tag, megatron = sys.argv[1:4]
pin = subprocess.run(["git", "-C", bridge, "ls-tree", tag, "3rdparty/Megatron-LM"],
                     capture_output=True, text=True, check=True).stdout.split()[2]

def show(repo, rev, path):
    r = subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None

# (repo, rev, path) of the files whose classes a section's class derives from
FILES = [
    (bridge, tag, "src/megatron/bridge/training/config.py"),
    (bridge, tag, "src/megatron/bridge/models/gpt_provider.py"),
    (bridge, tag, "src/megatron/bridge/models/transformer_config.py"),
    (bridge, tag, "src/megatron/bridge/training/comm_overlap.py"),
    (megatron, pin, "megatron/core/transformer/transformer_config.py"),
    (megatron, pin, "megatron/core/model_parallel_config.py"),
    (megatron, pin, "megatron/core/distributed/distributed_data_parallel_config.py"),
    (megatron, pin, "megatron/core/optimizer/optimizer_config.py"),
    (megatron, pin, "megatron/core/datasets/gpt_dataset.py"),
    (megatron, pin, "megatron/core/datasets/blended_megatron_dataset_config.py"),
]
classes = {}  # name -> (bases, fields); a later file's class of the same name does not replace an earlier one
aliases = {}
for repo, rev, path in FILES:
    src = show(repo, rev, path)
    if src is None:
        continue
    tree = ast.parse(src)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.asname:
                    aliases[a.asname] = a.name
        if isinstance(node, ast.ClassDef):
            bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else None
                     for b in node.bases]
            fields = [s.target.id for s in node.body
                      if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            key = node.name if node.name not in classes else path + ":" + node.name
            classes.setdefault(node.name, (bases, fields))
            if key != node.name:  # the same name in a base file (MCore's class the Bridge one derives from)
                classes[key] = (bases, fields)

def fields_of(name, seen=None):
    seen = seen or set()
    out = set()
    for key in [k for k in classes if k == name or k.endswith(":" + name)] + \
               ([k for k in classes if k.endswith(":" + aliases[name])] + [aliases[name]] if name in aliases else []):
        if key in seen or key not in classes:
            continue
        seen.add(key)
        bases, fields = classes[key]
        out |= set(fields)
        for b in bases:
            if b:
                out |= fields_of(b, seen)
    return out

SECTIONS = {"model": ["GPTModelProvider", "MLATransformerConfig"], "train": ["TrainingConfig"], "ddp": ["DistributedDataParallelConfig"],
            "optimizer": ["OptimizerConfig"], "dataset": ["GPTDatasetConfig"], "dist": ["DistributedInitConfig"],
            "checkpoint": ["CheckpointConfig"], "comm_overlap": ["CommOverlapConfig"]}
print(f"# Every section.field of Megatron-Bridge's ConfigContainer (Hydra overrides KEY=VALUE) at tag {tag},")
print(f"# github.com/NVIDIA-NeMo/Megatron-Bridge, with Megatron-LM pinned at {pin}: the dataclass fields")
print("# of each section's class and of its bases (the model section: GPTModelProvider and, for latent attention,")
print("# MLATransformerConfig); tests/data/megatron-bridge-keys.py regenerates it.")
print("mixed_precision")
for sec, names in SECTIONS.items():
    fs = set()
    for n in names:
        fs |= fields_of(n)
    for f in sorted(fs):
        if not f.startswith("_"):
            print(f"{sec}.{f}")
