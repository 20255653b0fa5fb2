#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A block's parameter defaults are written in up to three places: the public header's
make() (C++ users), the pybind11 binding's py::arg(...) = ... (Python users) and the
GRC YAML (flowgraph users); a Python block has its __init__ instead of the first two.
This test reads all of them from the sources and fails on any parameter whose default
differs between them, or that one of them lacks. A make() that takes one configuration
struct (kdp_ff_config, multichannel_correlator_block_config, patch_xcorr_cc_config,
pcps_acquisition_block_config, phase_unwrap_2d_ff_config,
polarimetric_products_cf_config, st_tbd_ff_config) has the defaults of the struct's
fields: the binding's assignments (config.a.b = keyword) say which field each keyword
sets.

The engine APIs likewise: each engine binding's py::arg defaults (python/engines/
bindings) against the fields of the C++ configuration its constructor fills
(core::polarimetric_config, core::dense_offsets_config, ...), and, imported from the
build (ctest sets PYTHONPATH), the Python engine package's functions that wrap them
(cudadsp.dense_offsets, dense_offsets_engine, the offsets tool's options, cudadsp.kdp)
and the defaults column of docs/apps/cudadsp_offsets.md.

Literals are compared as values: 1e-3 == 0.001, 1 << 20 == 1048576,
6.2831853071795864769 == 2*math.pi, "auto" == '"auto"', true == True,
{ -0.5, 0.0, 0.5 } == [-0.5, 0.0, 0.5], pmt::PMT_NIL == py::none() == None. A float
parameter is compared in float32 (0.9f). A required C++ argument has no default to
compare, though GRC must still show one; GRC defaults that name the flowgraph's
namespace (samp_rate) are GRC's convention and are not compared either.

Run: qa_block_defaults.py [--source-dir DIR] (default: the repository holding this
file), so a changed copy of the tree can be checked too.
"""

import argparse
import ast
import math
import operator
import pathlib
import re
import struct
import sys
import unittest

import yaml

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]


class Unreadable(ValueError):
    """A default that this test cannot turn into a value: fix the test or the source."""


# ---------------------------------------------------------------------------------
# Literal values
# ---------------------------------------------------------------------------------
_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.LShift: operator.lshift,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
_CONSTANTS = {"math.pi": math.pi, "math.e": math.e}


def literal_value(expression):
    """The value of a Python literal expression: numbers with arithmetic, strings,
    True/False/None, lists and tuples, math.pi. Names of the flowgraph (samp_rate) or
    calls are not literals: Unreadable."""

    def value(node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple)):
            return [value(element) for element in node.elts]
        if isinstance(node, ast.Dict):
            return {value(k): value(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.Attribute) and ast.unparse(node) in _CONSTANTS:
            return _CONSTANTS[ast.unparse(node)]
        raise Unreadable(f"not a literal: {expression!r}")

    try:
        return value(ast.parse(expression.strip(), mode="eval").body)
    except SyntaxError as error:
        raise Unreadable(f"not a literal: {expression!r}") from error


_CPP_NULL = {"pmt::PMT_NIL", "py::none()", "nullptr"}


def cpp_literal_value(expression):
    """The value of a C++ default argument: as literal_value() after C++ spellings are
    turned into Python ones (true, 0.9f, 1u, std::vector<double>{...}, { ... },
    pmt::PMT_NIL, py::none())."""
    text = expression.strip()
    if text in _CPP_NULL:
        return None
    if text in ("true", "false"):
        return text == "true"
    braced = re.fullmatch(r"(?:[\w:]+(?:<[\w:\s,]+>)?)?\s*\{(.*)\}", text, re.S)
    if braced:
        return [cpp_literal_value(item) for item in split_top_level(braced.group(1))]
    if text.startswith('"'):
        return literal_value(text)
    # Number suffixes (0.9f, 10u, 1ULL) are C++ only.
    text = re.sub(r"(?<=[\d.])([fF]|[uU]?[lL]{0,2}|[lL]{1,2}[uU]?)\b", "", text)
    return literal_value(text)


def same_value(a, b, cpp_type):
    """a == b, with bool never equal to a number, and float parameters compared as
    the float32 the C++ code receives."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list)
            and isinstance(b, list)
            and len(a) == len(b)
            and all(same_value(x, y, cpp_type) for x, y in zip(a, b))
        )
    if cpp_type == "float" and all(
        isinstance(v, (int, float)) for v in (a, b)
    ):
        return struct.pack("f", a) == struct.pack("f", b)
    return a == b


# ---------------------------------------------------------------------------------
# C++ sources
# ---------------------------------------------------------------------------------
def strip_comments(text):
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def matching_close(text, open_index):
    """Index of the bracket closing the one at open_index (string literals skipped)."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = []
    i = open_index
    while i < len(text):
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1)
            while text[i - 1] == "\\":
                i = text.index('"', i + 1)
        elif c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i
        i += 1
    raise Unreadable(f"unbalanced bracket at {open_index}")


def split_top_level(text):
    """Comma-separated items of text, commas inside brackets, template arguments or
    strings left alone. A '<' right after a name opens template arguments; 1 << 20 is a
    shift."""
    closing = {"(": ")", "[": "]", "{": "}", "<": ">"}
    items, stack, start, in_string = [], [], 0, False
    for i, c in enumerate(text):
        if in_string:
            in_string = not (c == '"' and text[i - 1] != "\\")
        elif c == '"':
            in_string = True
        elif c in "([{" or (c == "<" and re.match(r"\w", text[i - 1 : i] or " ")):
            stack.append(closing[c])
        elif stack and c == stack[-1]:
            stack.pop()
        elif c == "," and not stack:
            items.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        items.append(text[start:].strip())
    return items


def header_makes(header_path):
    """{class name: [(parameter, C++ type, default text or None), ...]} for every
    class in a public header with a static make() (a class template: its typedefs)."""
    text = strip_comments(header_path.read_text())
    makes = {}
    for match in re.finditer(r"class\s+CUDADSP_API\s+(\w+)", text):
        name = match.group(1)
        body_start = text.index("{", match.end())
        body = text[body_start : matching_close(text, body_start)]
        make = re.search(r"static\s+sptr\s+make\s*\(", body)
        if not make:
            continue
        arguments = body[make.end() : matching_close(body, make.end() - 1)]
        parameters = []
        for argument in split_top_level(arguments):
            declaration, _, default = argument.partition("=")
            words = re.match(r"(.*?)\s*\b(\w+)\s*$", declaration.strip(), re.S)
            cpp_type = re.sub(r"\s+", " ", words.group(1).replace("&", "")).strip()
            cpp_type = re.sub(r"^const ", "", cpp_type)
            parameters.append((words.group(2), cpp_type, default.strip() or None))
        makes[name] = parameters
    # A template's variants are its typedefs (gr-blocks' model: one class, one name each).
    for template, variant in re.findall(r"typedef\s+(\w+)\s*<[^;]*>\s*(\w+)\s*;", text):
        if template in makes:
            makes[variant] = makes[template]
    for template in set(re.findall(r"typedef\s+(\w+)\s*<", text)):
        makes.pop(template, None)
    return makes


def binding_arguments(binding_path):
    """(header file named by BINDTOOL_HEADER_FILE, [[(parameter, default text or
    None), ...] for every py::init of the file])."""
    text = binding_path.read_text()
    # The BINDTOOL_ markers are in a comment: read before the comments go.
    header = re.search(r"BINDTOOL_HEADER_FILE\(([^\s)]*)\)", text).group(1)
    return header, initialiser_arguments(strip_comments(text))


def initialiser_arguments(code):
    """[[(parameter, default text or None), ...] for every py::init of the code]."""
    initialisers = []
    for match in re.finditer(r"\.def\(\s*py::init\b", code):
        open_index = match.start() + len(".def")
        arguments = code[open_index + 1 : matching_close(code, open_index)]
        parameters = []
        for argument in split_top_level(arguments):
            arg = re.match(r'py::arg\("(\w+)"\)\s*(?:=\s*(.*))?$', argument, re.S)
            if arg:
                parameters.append((arg.group(1), arg.group(2)))
        initialisers.append(parameters)
    return initialisers


# ---------------------------------------------------------------------------------
# C++ configuration structs
# ---------------------------------------------------------------------------------
class enum_value:
    """An enumerator default (polarimetric_mode::simultaneous): its name for a string
    argument, its number for an integer one."""

    def __init__(self, enum, name, number):
        self.enum, self.name, self.number = enum, name, number

    def as_python(self, like):
        return self.number if isinstance(like, int) and not isinstance(like, bool) else self.name

    def __repr__(self):
        return f"{self.enum}::{self.name}"


def cpp_declarations(header_paths):
    """({struct: {member: (type, default text or None)}}, {enum: {enumerator: number}})
    of every struct and enum class in the headers."""
    structs, enums = {}, {}
    for path in header_paths:
        text = strip_comments(path.read_text())
        for match in re.finditer(r"enum\s+class\s+(\w+)\s*(?::\s*\w+)?\s*\{", text):
            body = text[match.end() : matching_close(text, match.end() - 1)]
            number, members = -1, {}
            for item in split_top_level(body):
                name, _, value = item.partition("=")
                number = int(value.strip(), 0) if value.strip() else number + 1
                members[name.strip()] = number
            enums[match.group(1)] = members
        for match in re.finditer(r"\bstruct\s+(?:\w+_API\s+)?(\w+)\s*(?::[^{;]*)?\{", text):
            body = text[match.end() : matching_close(text, match.end() - 1)]
            # Member functions' bodies out first, then one declaration per statement.
            while re.search(r"\{[^{}]*\}", body):
                body = re.sub(r"\)\s*(?:const\s*)?\{[^{}]*\}", ");", body)
                body = re.sub(r"\{([^{}]*)\}", r"[\1]", body)
            members = {}
            for statement in body.split(";"):
                statement = " ".join(statement.split())
                if not statement or statement.startswith(("static", "using", "friend")):
                    continue
                declaration, _, default = statement.partition("=")
                if "(" in declaration:
                    continue  # a member function
                words = re.match(r"(.*?)\s*\b(\w+)$", declaration.strip())
                if words and words.group(1):
                    members[words.group(2)] = (words.group(1), default.strip() or None)
            structs[match.group(1)] = members
    return structs, enums


def short_name(cpp_type):
    """The last component of a C++ type name: core::polarimetric_config -> polarimetric_config."""
    return re.sub(r"^(const\s+)?(.*::)?", "", cpp_type.strip())


def field_declaration(structs, struct, path):
    """(C++ type, default text or None) of struct's field at path
    ("processing.calibration.zcal_db"); Unreadable when there is no such field."""
    cpp_type, default = None, None
    for member in path.split("."):
        if struct not in structs or member not in structs[struct]:
            raise Unreadable(f"no field {path} in {struct}")
        cpp_type, default = structs[struct][member]
        struct = short_name(cpp_type)
    return cpp_type, default


def field_default(structs, enums, struct, path):
    """The default of struct's field at path ("processing.calibration.zcal_db"): a
    Python value, or an enum_value."""
    _, default = field_declaration(structs, struct, path)
    if default is None:
        raise Unreadable(f"{path}: no default in its struct")
    enumerator = re.fullmatch(r"(?:\w+::)*(\w+)::(\w+)", default)
    if enumerator and enumerator.group(1) in enums:
        enum, name = enumerator.groups()
        return enum_value(enum, name, enums[enum][name])
    return cpp_literal_value(default)


def struct_variables(code, structs):
    """{variable: struct} for every variable of a configuration struct type declared in
    code (core::dense_offsets_config config; const core::offset_grid grid_defaults;)."""
    variables = {}
    for cpp_type, variable in re.findall(r"(?:const\s+)?([\w:]+)\s+(\w+)\s*;", code):
        if short_name(cpp_type) in structs:
            variables[variable] = short_name(cpp_type)
    return variables


def binding_fields(binding_path, structs):
    """{argument: (struct, field path)}: the field of a configuration struct that each
    argument of the binding sets (config.processing.mode = ...parse(mode, ...);), or
    that a dict of defaults names (d["skip_down"] = grid_defaults.skip_down;)."""
    code = strip_comments(binding_path.read_text())
    variables = struct_variables(code, structs)
    fields = {}
    for variable, path, expression in re.findall(r"\b(\w+)\.([\w.]+)\s*=\s*([^;=][^;]*);", code):
        if variable in variables:
            for argument in re.findall(r"\b[a-z_]\w*\b", expression):
                fields.setdefault(argument, (variables[variable], path))
    for key, variable, path in re.findall(r'\bd\["(\w+)"\]\s*=\s*(\w+)\.([\w.]+)\s*;', code):
        if variable in variables:
            fields.setdefault(key, (variables[variable], path))
    return fields, variables


def binding_default_value(text, variables, structs, enums):
    """A py::arg default: a literal, or a configuration struct's default read through
    a variable (defaults.window_width, peak_name(defaults.peak))."""
    read = re.search(r"\b(\w+)\.([\w.]+)", text)
    if read and read.group(1) in variables and not text.strip().startswith('"'):
        return field_default(structs, enums, variables[read.group(1)], read.group(2))
    return cpp_literal_value(text)


def same_default(cpp_value, python_value, cpp_type=None):
    """same_value() with an enumerator compared as its name or number."""
    if isinstance(cpp_value, enum_value):
        if isinstance(python_value, enum_value):
            return (cpp_value.enum, cpp_value.name) == (python_value.enum, python_value.name)
        cpp_value = cpp_value.as_python(python_value)
    if isinstance(python_value, enum_value):
        python_value = python_value.as_python(cpp_value)
    return same_value(cpp_value, python_value, cpp_type)


# ---------------------------------------------------------------------------------
# Python blocks and GRC
# ---------------------------------------------------------------------------------
def python_block_parameters(package_dir, class_name):
    """[(parameter, default text or None), ...] of class_name.__init__ in the package,
    or None when no Python file defines the class."""
    for path in sorted(package_dir.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name == class_name:
                init = next(
                    f
                    for f in node.body
                    if isinstance(f, ast.FunctionDef) and f.name == "__init__"
                )
                names = [a.arg for a in init.args.args[1:]]
                defaults = [None] * (len(names) - len(init.args.defaults)) + [
                    ast.unparse(d) for d in init.args.defaults
                ]
                return list(zip(names, defaults))
    return None


def grc_blocks(grc_dir):
    """({block name without the cudadsp_ prefix: {parameter id: (dtype, default)}},
    {class name: block name}). GRC offers the variants of one family (the correlator's
    multichannel_correlator_cc, _sc and _bc) as one block with an Input Type whose
    options are the class name suffixes."""
    blocks, classes = {}, {}
    for path in sorted(grc_dir.glob("cudadsp_*.block.yml")):
        description = yaml.safe_load(path.read_text())
        name = description["id"][len("cudadsp_") :]
        parameters = {p["id"]: p for p in description["parameters"]}
        blocks[name] = {
            id: (p.get("dtype"), str(p.get("default", ""))) for id, p in parameters.items()
        }
        classes[name] = name
        if "type" in parameters:
            family = name.rsplit("_", 1)[0]
            for suffix in parameters["type"]["options"]:
                classes[f"{family}_{suffix}"] = name
    return blocks, classes


# ---------------------------------------------------------------------------------
# The comparison
# ---------------------------------------------------------------------------------
def grc_default_value(dtype, default):
    """The value of a GRC default; None when it uses the flowgraph's namespace (a
    variable such as samp_rate, a function of an imported module): GRC convention."""
    if dtype in ("string", "file_open", "file_save") and not default.strip():
        return default
    try:
        tree = ast.parse(default.strip(), mode="eval")
    except SyntaxError:
        return default if dtype in ("string", "file_open", "file_save") else None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) or (
            isinstance(node, ast.Name) and node.id not in ("True", "False", "None", "math")
        ):
            return None
    return literal_value(default)


def compare_block(name, sources, grc_parameters):
    """Differences for one block. sources: [(where, [(parameter, C++ type or None,
    default text or None, reader)])], the first being the reference for names."""
    problems = []
    reference_where, reference = sources[0]
    reference_names = [p[0] for p in reference]
    for where, parameters in sources[1:]:
        names = [p[0] for p in parameters]
        if names != reference_names:
            problems.append(
                f"{name}: parameters of {where} {names} differ from {reference_where} "
                f"{reference_names}"
            )
    for index, (parameter, cpp_type, _, _) in enumerate(reference):
        values = []
        for where, parameters in sources:
            if index >= len(parameters) or parameters[index][0] != parameter:
                continue
            _, _, text, reader = parameters[index]
            values.append((where, text, None if text is None else reader(text)))
        has_default = {where for where, text, _ in values if text is not None}
        if has_default and len(has_default) != len(values):
            problems.append(
                f"{name}.{parameter}: default given in {sorted(has_default)} only"
            )
            continue
        if parameter not in grc_parameters:
            problems.append(f"{name}.{parameter}: no GRC parameter")
        elif has_default:
            dtype, default = grc_parameters[parameter]
            grc_value = grc_default_value(dtype, default)
            if grc_value is not None:
                values.append(("GRC YAML", default, grc_value))
        first_where, first_text, first_value = values[0]
        for where, text, value in values[1:]:
            if text is not None and not same_value(first_value, value, cpp_type):
                problems.append(
                    f"{name}.{parameter}: {first_where} has {first_text}, {where} has "
                    f"{text}"
                )
    return problems


def configuration_headers(source_dir):
    """The public headers, the blocks' and the engines' (core/)."""
    include_dir = source_dir / "include" / "gnuradio" / "cudadsp"
    return sorted(include_dir.glob("*.h")) + sorted((include_dir / "core").glob("*.h"))


def configuration_source(header_name, struct, binding_path, arguments, structs, enums,
                         problems):
    """The C++ side of a make() that takes one configuration struct: for each binding
    argument, the default of the field it sets (none where the binding's argument has
    none: a required one), as compare_block() takes a source."""
    fields, variables = binding_fields(binding_path, structs)
    parameters = []
    for name, text in arguments:
        if name not in fields or fields[name][0] != struct:
            problems.append(f"{binding_path.name}: argument {name} sets no field of {struct}")
            continue
        if text is None:
            # A required argument: its field need only exist (it may have no default,
            # as core::st_tbd_config's hypotheses).
            field_declaration(structs, *fields[name])
            parameters.append((name, None, None, None))
            continue
        value = field_default(structs, enums, *fields[name])
        if isinstance(value, enum_value):
            value = value.as_python(binding_default_value(text, variables, structs, enums))
        parameters.append(
            (name, None, f"{struct}.{fields[name][1]} = {value!r}",
             lambda _, value=value: value)
        )
    return (f"{header_name} {struct}", parameters)


def find_differences(source_dir):
    include_dir = source_dir / "include" / "gnuradio" / "cudadsp"
    bindings_dir = source_dir / "python" / "cudadsp" / "bindings"
    grc, grc_block_of_class = grc_blocks(source_dir / "grc")

    bindings = {}
    for path in sorted(bindings_dir.glob("*_python.cc")):
        if "BINDTOOL_HEADER_FILE(" in path.read_text():
            header, initialisers = binding_arguments(path)
            bindings[header] = (path.name, initialisers)

    structs, enums = cpp_declarations(configuration_headers(source_dir))
    problems, compared = [], set()
    for header_path in sorted(include_dir.glob("*.h")):
        makes = header_makes(header_path)
        if not makes:
            continue
        binding_file, initialisers = bindings.get(header_path.name, (None, []))
        if len(initialisers) != 1:
            # One py::init per header; a header of several classes (the correlator's
            # cf32, sc16 and sc8 variants) binds them all through one template.
            problems.append(
                f"{header_path.name}: expected one py::init in its binding, found "
                f"{len(initialisers)}"
            )
            continue
        for class_name, parameters in makes.items():
            header_source = (
                f"{header_path.name} make()",
                [(p, t, d, cpp_literal_value) for p, t, d in parameters],
            )
            if len(parameters) == 1 and short_name(parameters[0][1]) in structs:
                header_source = configuration_source(
                    header_path.name, short_name(parameters[0][1]),
                    bindings_dir / binding_file, initialisers[0], structs, enums,
                    problems)
                parameters = [(p, t, d) for p, t, d, _ in header_source[1]]
            types = {p: t for p, t, _ in parameters}
            binding_source = (
                f"{binding_file} py::arg",
                [(p, types.get(p), d, cpp_literal_value) for p, d in initialisers[0]],
            )
            grc_name = grc_block_of_class.get(class_name)
            if grc_name is None:
                problems.append(f"{class_name}: no GRC block")
                continue
            compared.add(grc_name)
            problems += compare_block(
                class_name, [header_source, binding_source], grc[grc_name]
            )

    package_dir = source_dir / "python" / "cudadsp"
    for grc_name, grc_parameters in grc.items():
        if grc_name in compared:
            continue
        parameters = python_block_parameters(package_dir, grc_name)
        if parameters is None:
            problems.append(f"{grc_name}: GRC block with neither make() nor a Python class")
            continue
        python_source = (
            f"{grc_name}.__init__",
            [(p, None, d, literal_value) for p, d in parameters],
        )
        problems += compare_block(grc_name, [python_source], grc_parameters)
    return problems


# The Python engine package's functions that wrap an engine binding, with the defaults
# of its arguments: (binding, module, [function or class, method as Class.method]).
ENGINE_WRAPPERS = (
    ("dense_offsets_python.cc", "cudadsp.insar.dense_offsets",
     ("dense_offsets", "dense_offsets_engine", "dense_offsets_engine.layout",
      "dense_offsets_engine.estimate")),
    ("dense_offsets_python.cc", "cudadsp.insar.offset_stack", ("offsets_options",)),
    ("kdp_python.cc", "cudadsp.radar.kdp_radials", ("kdp",)),
)
# Tables of defaults in the documentation: (document, binding, module whose
# add_offsets_arguments() makes the options the first column names).
DOCUMENTED_DEFAULTS = (
    ("docs/apps/cudadsp_offsets.md", "dense_offsets_python.cc", "cudadsp.insar.offset_stack"),
)


def engine_binding_differences(source_dir):
    """Each engine binding's py::arg defaults against the configuration fields they
    set; also a binding that fills a configuration without any argument mapped."""
    structs, enums = cpp_declarations(configuration_headers(source_dir))
    problems = []
    for path in sorted((source_dir / "python" / "engines" / "bindings").glob("*_python.cc")):
        fields, variables = binding_fields(path, structs)
        for arguments in initialiser_arguments(strip_comments(path.read_text())):
            for name, text in arguments:
                if text is None or name not in fields:
                    continue
                struct, field = fields[name]
                expected = field_default(structs, enums, struct, field)
                got = binding_default_value(text, variables, structs, enums)
                if not same_default(expected, got):
                    problems.append(f"{path.name} py::arg {name} = {text}: {struct}.{field} "
                                    f"is {expected!r}")
    return problems


def wrapped_fields(source_dir, binding):
    structs, enums = cpp_declarations(configuration_headers(source_dir))
    fields, _ = binding_fields(source_dir / "python" / "engines" / "bindings" / binding,
                               structs)
    return {name: (f"{struct}.{field}", field_default(structs, enums, struct, field))
            for name, (struct, field) in fields.items()}


def engine_package_differences(source_dir):
    """The Python engine package's defaults (imported: the build's cudadsp) against
    the C++ configuration fields of the binding each function wraps; a function of
    ENGINE_WRAPPERS with nothing to compare is a problem too."""
    import importlib
    import inspect

    problems = []
    for binding, module_name, names in ENGINE_WRAPPERS:
        fields = wrapped_fields(source_dir, binding)
        module = importlib.import_module(module_name)
        for name in names:
            target = module
            for part in name.split("."):
                target = getattr(target, part)
            compared = 0
            for parameter in inspect.signature(target).parameters.values():
                if parameter.default is inspect.Parameter.empty or parameter.name not in fields:
                    continue
                where, expected = fields[parameter.name]
                compared += 1
                if not same_default(expected, parameter.default):
                    problems.append(f"{module_name}.{name}({parameter.name}="
                                    f"{parameter.default!r}): {where} is {expected!r}")
            if not compared:
                problems.append(f"{module_name}.{name}: no argument of {binding}'s "
                                "configuration")
    return problems


def documented_default_differences(source_dir):
    """The default column of each DOCUMENTED_DEFAULTS table, for the options that set a
    configuration field, against that field's C++ default."""
    import argparse as arguments_module
    import importlib

    problems = []
    for document, binding, module_name in DOCUMENTED_DEFAULTS:
        fields = wrapped_fields(source_dir, binding)
        parser = arguments_module.ArgumentParser()
        importlib.import_module(module_name).add_offsets_arguments(parser)
        dest = {option: action.dest for action in parser._actions
                for option in action.option_strings}
        compared = 0
        for line in (source_dir / document).read_text().splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            option = re.match(r"`(--[\w-]+)", cells[0]) if len(cells) >= 5 else None
            if not option or dest.get(option.group(1)) not in fields:
                continue
            name = dest[option.group(1)]
            where, expected = fields[name]
            text = cells[3].strip("`")
            documented = {"off": False, "on": True}.get(text)
            if documented is None:
                try:
                    documented = literal_value(text)
                except Unreadable:
                    documented = text
            compared += 1
            if not same_default(expected, documented):
                problems.append(f"{document}: {option.group(1)} default {cells[3]}, "
                                f"{where} is {expected!r}")
        if not compared:
            problems.append(f"{document}: no option default found to compare")
    return problems


class qa_block_defaults(unittest.TestCase):
    source_dir = SOURCE_DIR

    def test_defaults_agree(self):
        problems = find_differences(self.source_dir)
        if problems:
            self.fail("defaults differ:\n" + "\n".join(problems))

    def test_engine_bindings_agree_with_configs(self):
        problems = engine_binding_differences(self.source_dir)
        if problems:
            self.fail("engine defaults differ:\n" + "\n".join(problems))

    def test_engine_package_agrees_with_configs(self):
        problems = engine_package_differences(self.source_dir)
        if problems:
            self.fail("engine package defaults differ:\n" + "\n".join(problems))

    def test_documented_defaults_agree_with_configs(self):
        problems = documented_default_differences(self.source_dir)
        if problems:
            self.fail("documented defaults differ:\n" + "\n".join(problems))

    def test_physical_defaults_are_plain_decimals(self):
        # A GRC field with a unit in its label ("PRT (s)", "Frequency (Hz)") shows
        # its default as a plain decimal (0.001, not 1e-3): what a user reads at a
        # glance and compares with a data sheet. Probabilities and tolerances (no
        # unit) may keep their exponent.
        problems = []
        for path in sorted((self.source_dir / "grc").glob("cudadsp_*.block.yml")):
            for p in yaml.safe_load(path.read_text())["parameters"]:
                default = str(p.get("default", ""))
                has_unit = re.search(r"\((Hz|s|m|m/s|deg|deg/s|dB|dBZ|km|W|rad)\)",
                                     str(p.get("label", "")))
                if p.get("dtype") == "real" and has_unit and re.search(r"\de", default):
                    problems.append(f"{path.name}: {p['id']} ({p['label']}): {default}")
        self.assertEqual(problems, [])

    def test_readers(self):
        self.assertEqual(cpp_literal_value("1 << 20"), 1048576)
        self.assertEqual(cpp_literal_value("0.9f"), 0.9)
        self.assertEqual(
            cpp_literal_value("std::vector<double>{ -0.5, 0.0, 0.5 }"), [-0.5, 0.0, 0.5]
        )
        self.assertIsNone(cpp_literal_value("pmt::PMT_NIL"))
        for cpp, python, cpp_type, same in [
            ("1e-3", "0.001", "double", True),
            ("6.283185307179586476925286766559", "2*math.pi", "double", True),
            ("0.9f", "0.9", "float", True),
            ("false", "0", "bool", False),
            ('"auto"', '"cpu"', "std::string", False),
        ]:
            with self.subTest(cpp=cpp, python=python):
                self.assertEqual(
                    same_value(cpp_literal_value(cpp), literal_value(python), cpp_type), same
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source-dir", type=pathlib.Path, default=SOURCE_DIR)
    arguments, remaining = parser.parse_known_args()
    qa_block_defaults.source_dir = arguments.source_dir.resolve()
    unittest.main(argv=[sys.argv[0]] + remaining)
