#!/usr/bin/env python3
"""Moves Java types between packages across the whole repository, the same way every time.

    tools/api-move/api-move.py [MOVES...]      (default: tools/api-move/moves.txt)

A moves file has one move a line, `old.package.Type new.package.Type` (a top-level type of
main or test code; `#` starts a comment). For each move, in the file's order:

1. `git mv` the type's file to the new package's folder of the same module and source set
   (skipped when it is already there), and rewrite its `package` line;
2. give the moved file an import for each public type of its old package it names (it no
   longer sees them without one), unless it already imports that simple name;
3. give every Java file still in the old package that names the type an import of it (they
   saw it without one), and every Java file or Markdown page (its java snippets read as one
   program) that imports the old package with `*` and names the type, unless it imports the
   new package or the type;
4. rewrite every fully qualified name (`old.package.Type`, `old.package.Type.Nested`,
   `old.package.Type$Nested`, `old/package/Type`) in every tracked text file: sources of every
   module, docs, examples, README, DEVELOPERS, api/ files, service files, poms; not in the
   moves files (tools/api-move/) nor in a file that holds the text "api-move: keeps old names"
   (docs/modules.md, which lists the old names on purpose);
5. drop the imports that the files this run moved have of types of their new package (a file
   moved before its neighbours was given imports of them in steps 2 and 3).

Every step looks at the tree as it is, so the script is idempotent and can run again on a
newer tree with new code (it moves nothing twice, and fixes only what still names the old
place). It never changes modifiers or members: a moved type that used package-private code of
its old package fails to compile, and that is fixed by hand in a separate commit.
"""
import os
import re
import subprocess
import sys

ROOT = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                      check=True).stdout.strip()
TEXT_SUFFIXES = (".java", ".md", ".api", ".txt", ".xml", ".properties", ".html", ".yml", ".yaml",
                 ".json", ".imports", ".factories")
SOURCE_SETS = ("src/main/java", "src/test/java")
# A file holding this text keeps the old names it mentions (a page listing what moved).
KEEP = "api-move: keeps old names"


def git_files():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = [f for f in out.decode().split("\0") if f]
    return sorted(f for f in files if os.path.exists(os.path.join(ROOT, f)))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(os.path.join(ROOT, path), "w", encoding="utf-8") as f:
        f.write(text)


def split(fqcn):
    pkg, _, name = fqcn.rpartition(".")
    return pkg, name


def java_files(files):
    return [f for f in files if f.endswith(".java")]


def package_of(path):
    for source_set in SOURCE_SETS:
        marker = "/" + source_set + "/"
        at = ("/" + path).find(marker)
        if at >= 0:
            rel = ("/" + path)[at + len(marker):]
            return os.path.dirname(rel).replace("/", "."), ("/" + path)[1:at + len(marker) - 1]
    return None, None


def find_source(files, fqcn):
    rel = "/" + fqcn.replace(".", "/") + ".java"
    hits = [f for f in java_files(files) if ("/" + f).endswith(rel) and package_of(f)[0] == split(fqcn)[0]]
    return hits


def word(name):
    return re.compile(r"(?<![\w.$])" + re.escape(name) + r"(?![\w$])")


def imports(text):
    return re.findall(r"^import\s+(static\s+)?([\w.]+(?:\.\*)?)\s*;", text, re.M)


def imported_names(text):
    return {name.rsplit(".", 1)[-1] for static, name in imports(text) if not static}


def add_import(text, fqcn):
    line = "import " + fqcn + ";"
    if re.search(r"^" + re.escape(line) + r"\s*$", text, re.M):
        return text
    lines = text.split("\n")
    import_at = [i for i, l in enumerate(lines) if re.match(r"import\s+[\w.]+(\.\*)?\s*;", l)]
    if import_at:
        at = import_at[-1] + 1
        for i in import_at:
            if lines[i] > line:
                at = i
                break
        lines.insert(at, line)
    else:
        pkg_at = next(i for i, l in enumerate(lines) if l.startswith("package "))
        lines[pkg_at + 1:pkg_at + 1] = ["", line]
    return "\n".join(lines)


def strip_comments_and_strings(text):
    """The code with comments and string literals blanked, for telling whether a name is used."""
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', " ", text, flags=re.S)


def uses(text, name, javadoc_counts=True):
    body = re.sub(r"^(package|import)\s[^\n]*", "", text, flags=re.M)
    if not javadoc_counts:
        body = strip_comments_and_strings(body)
    else:
        body = re.sub(r'//[^\n]*|"(?:\\.|[^"\\\n])*"', " ", body)   # Javadoc links need the import too
    return word(name).search(body) is not None


def public_types(files, pkg, exclude):
    """Simple name -> fqcn of the public top-level types of a package, in any module."""
    found = {}
    for f in java_files(files):
        if package_of(f)[0] != pkg or f in exclude:
            continue
        name = os.path.basename(f)[:-5]
        if name in ("package-info", "module-info"):
            continue
        if re.search(r"^public\s+(?:(?:abstract|final|sealed|non-sealed|strictfp)\s+)*"
                     r"(?:class|interface|enum|record|@interface)\s+" + re.escape(name) + r"\b", read(f), re.M):
            found[name] = pkg + "." + name
    return found


def move(files, old, new, moved_before):
    old_pkg, name = split(old)
    new_pkg, new_name = split(new)
    if name != new_name:
        sys.exit("renaming a type is not a move: " + old + " -> " + new)
    sources = find_source(files, old)
    targets = find_source(files, new)
    moved = []
    for source in sources:
        _, root = package_of(source)
        target = root + "/" + new.replace(".", "/") + ".java"
        if target in targets:
            sys.exit("both " + source + " and " + target + " exist: merge them by hand")
        os.makedirs(os.path.dirname(os.path.join(ROOT, target)), exist_ok=True)
        subprocess.run(["git", "mv", source, target], cwd=ROOT, check=True)
        text = read(target)
        text = re.sub(r"^package\s+" + re.escape(old_pkg) + r"\s*;", "package " + new_pkg + ";", text, count=1,
                      flags=re.M)
        write(target, text)
        moved.append(target)
        print("moved", source, "->", target)
    if not sources and not targets:
        print("warning: neither", old, "nor", new, "exists; nothing to move", file=sys.stderr)
    files = git_files()
    # 2. the moved file names types of its old package that it saw without an import
    for target in moved:
        text = read(target)
        have = imported_names(text)
        for simple, fqcn in sorted(public_types(files, old_pkg, set(moved)).items()):
            if simple != name and simple not in have and uses(text, simple):
                text = add_import(text, fqcn)
        write(target, text)
    # 3. files of the old package, and those importing it with *, name the type
    for f in java_files(files):
        pkg, _ = package_of(f)
        if pkg is None or pkg == new_pkg:
            continue
        text = read(f)
        wildcard = any(not s and n == old_pkg + ".*" for s, n in imports(text))
        if pkg != old_pkg and not wildcard:
            continue
        if any(not s and n == new_pkg + ".*" for s, n in imports(text)):
            continue
        if name in imported_names(text) or not uses(text, name):
            continue
        write(f, add_import(text, new))
    for f in files:
        if not f.endswith(".md"):
            continue
        text = read(f)
        if KEEP in text:
            continue
        # A page's java snippets are read as one program (DocumentationSnippetsTest): the import
        # goes next to the first snippet's `import old.package.*;` when any snippet names the type.
        parts = re.split(r"(```[a-z]*\n.*?```)", text, flags=re.S)
        java = [i for i, part in enumerate(parts) if part.startswith("```java")]
        program = "\n".join(parts[i] for i in java)
        wildcard = re.compile(r"^import\s+" + re.escape(old_pkg) + r"\.\*;", re.M)
        if not wildcard.search(program) or not uses(program, name):
            continue
        if re.search(r"^import\s+(" + re.escape(new_pkg) + r"\.\*|" + re.escape(new) + r");", program, re.M):
            continue
        first = next(i for i in java if wildcard.search(parts[i]))
        parts[first] = wildcard.sub(lambda m: m.group(0) + "\nimport " + new + ";", parts[first], count=1)
        write(f, "".join(parts))
    # 4. fully qualified names, dotted and slashed, everywhere (but in the moves files and the
    #    pages that list the old names on purpose, marked with KEEP)
    dotted = re.compile(r"(?<![\w.])" + re.escape(old) + r"(?![\w])")
    slashed = re.compile(r"(?<![\w/])" + re.escape(old.replace(".", "/")) + r"(?![\w])")
    for f in files:
        if not f.endswith(TEXT_SUFFIXES) and "/META-INF/services/" not in f:
            continue
        if f.startswith("tools/api-move/"):
            continue
        try:
            text = read(f)
        except UnicodeDecodeError:
            continue
        if KEEP in text:
            continue
        updated = dotted.sub(new, text)
        updated = slashed.sub(new.replace(".", "/"), updated)
        if updated != text:
            write(f, updated)
    # 5. a moved file needs no import of a type beside it: when a package moves type by type,
    #    a file moved early was given imports (steps 2 and 3) of its neighbours that followed it
    moved_before.update(moved)
    same_package = re.compile(r"^import\s+" + re.escape(new_pkg) + r"\.[A-Za-z_$][\w$]*\s*;[ \t]*\n", re.M)
    for f in sorted(moved_before):
        if package_of(f)[0] == new_pkg and os.path.exists(os.path.join(ROOT, f)):
            text = read(f)
            updated = same_package.sub("", text)
            if updated != text:
                write(f, updated)
    return git_files()


def main():
    moves_files = sys.argv[1:] or [os.path.join(ROOT, "tools/api-move/moves.txt")]
    moves = []
    for moves_file in moves_files:
        with open(moves_file, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    old, new = line.split()
                    moves.append((old, new))
    files = git_files()
    moved = set()
    for old, new in moves:
        files = move(files, old, new, moved)


if __name__ == "__main__":
    main()
