//! The JSON Schema (draft 2020-12) of scenario files, derived from the types that read them, so
//! that editors complete and check a file with what `shotty scenario run` accepts.
//!
//! Each step type has a schema of its own (`WaitStep`, `SendStep`, …) written from the table
//! the reader checks steps against ([`StepKind::keys`]), and each phase lists the step types it
//! allows ([`Phase::allows`]). What JSON Schema cannot say is left to the reader, which checks
//! it before anything runs: key names, regular expressions, file extensions, appearance option
//! names and values, sizes of durations with a unit, and the rules between arguments (a `wait`
//! waits for one thing, an `assert` takes `text` or `regex`).

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Map, Value, json};

use super::{Document, Phase, Step, StepArgs, StepKind, kebab_case};

/// The schema's `$id`: a name, not a place to fetch it from.
pub const ID: &str = "urn:shotty:scenario:v1";

/// The schema's title.
pub const TITLE: &str = "shotty scenario (console2svg ScenarioDocument v1)";

/// A duration with a unit as [`parse_duration`](crate::duration::parse_duration) reads it: a
/// number without a sign or an exponent, then `ms`, `s`, `m` or `h` (seconds when there is
/// none).
pub const DURATION_PATTERN: &str = r"^\s*\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)(ms|s|m|h)?\s*$";

/// A colour an `assert` names: `default`, an ANSI colour name ([`ANSI_COLOR_NAMES`]) or
/// `#rrggbb` (an index is a number).
///
/// [`ANSI_COLOR_NAMES`]: crate::term::ANSI_COLOR_NAMES
pub const COLOR_PATTERN: &str =
    "^(default|(bright-)?(black|red|green|yellow|blue|magenta|cyan|white)|#[0-9A-Fa-f]{6})$";

/// The schema of scenario files.
pub fn schema() -> Schema {
    let mut schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Document>();
    schema.insert("$id".into(), ID.into());
    schema.insert("title".into(), TITLE.into());
    schema.insert(
        "description".into(),
        "A scenario file for `shotty scenario run` and `shotty test`: console2svg's \
         ScenarioDocument v1 and shotty's additions, in YAML or JSON. Keys are camelCase; \
         the kebab-case spelling (`working-dir`, `stable-for`) is accepted too."
            .into(),
    );
    let mut value = schema.to_value();
    accept_kebab_case(&mut value);
    tidy(&mut value);
    drop_unused_definitions(&mut value);
    // `value` is the object it was made from; were it not, a schema refusing everything says
    // so sooner than one allowing everything.
    Schema::try_from(value).unwrap_or_else(|_| Schema::from(false))
}

/// The schema as `shotty scenario schema` prints it: pretty JSON and a newline.
pub fn json() -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(&schema()).map(|text| text + "\n")
}

/// `$version`: the one version this reader reads.
pub(super) fn version(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "const": super::VERSION })
}

/// A `wait`'s `command`: `true`, or `{exitCode: N}` to require the exit code.
pub(super) fn wait_command(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "A shell command finished after the last input (needs `launch.shellIntegration`): `true`, or `{exitCode: N}` to require its exit code.",
        "anyOf": [
            { "const": true },
            {
                "type": "object",
                "properties": { "exitCode": { "type": "integer" } },
                "patternProperties": { "^exit-code$": { "type": "integer" } },
                "additionalProperties": false,
                "minProperties": 1,
                "maxProperties": 1
            },
            { "type": "null" }
        ]
    })
}

/// `appearance`: option name → value, as `shotty scenario run` turns them into command-line
/// words: `true` a flag, `false` nothing, a list several values.
pub(super) fn appearance(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": ["object", "null"],
        "additionalProperties": {
            "anyOf": [
                { "type": ["string", "number", "boolean"] },
                {
                    "type": "array",
                    "items": { "type": ["string", "number"] },
                    "minItems": 1
                }
            ]
        }
    })
}

/// `prepare`: the steps before launch.
pub(super) fn prepare_steps(generator: &mut SchemaGenerator) -> Schema {
    steps(generator, Phase::Prepare)
}

/// `execute`: the steps while the program runs.
pub(super) fn execute_steps(generator: &mut SchemaGenerator) -> Schema {
    steps(generator, Phase::Execute)
}

/// `verify`: the steps after the program ended.
pub(super) fn verify_steps(generator: &mut SchemaGenerator) -> Schema {
    steps(generator, Phase::Verify)
}

/// `teardown`: the steps that always run last.
pub(super) fn teardown_steps(generator: &mut SchemaGenerator) -> Schema {
    steps(generator, Phase::Teardown)
}

/// A list of the steps `phase` allows, each type by its own schema so that an editor offers
/// the keys and `args` of the type written. The type picks the schema (`if`/`then`) rather than
/// the step having to match one of them (`oneOf`), so that a validator says what is wrong with
/// the step instead of that it matches no type.
fn steps(generator: &mut SchemaGenerator, phase: Phase) -> Schema {
    let kinds: Vec<StepKind> = StepKind::ALL
        .into_iter()
        .filter(|&kind| phase.allows(kind))
        .collect();
    let items = match kinds.as_slice() {
        [kind] => step_reference(generator, *kind),
        _ => {
            let by_type: Vec<Value> = kinds
                .iter()
                .map(|&kind| {
                    json!({
                        "if": {
                            "properties": { "type": { "const": kind.name() } },
                            "required": ["type"],
                        },
                        "then": step_reference(generator, kind),
                    })
                })
                .collect();
            let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
            json!({
                "type": "object",
                "properties": { "type": { "enum": names } },
                "required": ["type"],
                "allOf": by_type,
            })
        }
    };
    json_schema!({ "type": "array", "items": items })
}

/// The name of a step type's schema in `$defs`: `wait` → `WaitStep`.
pub fn step_definition(kind: StepKind) -> String {
    let name = kind.name();
    let mut chars = name.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase());
    first
        .into_iter()
        .chain(chars)
        .chain("Step".chars())
        .collect()
}

/// A `$ref` to the schema of `kind`'s steps, added to the definitions the first time.
fn step_reference(generator: &mut SchemaGenerator, kind: StepKind) -> Value {
    let name = step_definition(kind);
    if !generator.definitions().contains_key(&name) {
        let schema = step_schema(generator, kind);
        generator.definitions_mut().insert(name.clone(), schema);
    }
    json!({ "$ref": format!("#{}/{name}", generator.settings().definitions_path) })
}

/// One step type's schema: the keys of [`Step`] its row of [`StepKind::keys`] names (their
/// schemas and descriptions derived from [`Step`]), and in `args` the arguments of
/// [`StepArgs`] it names.
fn step_schema(generator: &mut SchemaGenerator, kind: StepKind) -> Value {
    let step = Step::json_schema(generator).to_value();
    let all_args = StepArgs::json_schema(generator).to_value();
    let kinds = StepKind::json_schema(generator).to_value();
    let description = kinds["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|variant| variant["const"] == kind.name())
        .map(|variant| variant["description"].clone())
        .filter(Value::is_string);
    let shape = kind.keys();

    let mut type_schema = json!({ "const": kind.name() });
    if let Some(description) = &description {
        type_schema["description"] = description.clone();
    }
    let mut properties = Map::new();
    properties.insert("type".into(), type_schema);
    properties.insert("name".into(), step_key(&step, "name"));
    for &key in shape.keys {
        let mut schema = if key == "args" {
            let mut args = Map::new();
            for &arg in shape.args {
                let mut schema = step_key(&all_args, arg);
                if shape.required_args.contains(&arg) {
                    schema = non_null(schema);
                }
                args.insert(arg.into(), schema);
            }
            json!({
                "description": step_key(&step, "args")["description"],
                "type": ["object", "null"],
                "properties": args,
                "required": shape.required_args,
                "additionalProperties": false,
            })
        } else {
            step_key(&step, key)
        };
        if shape.required.contains(&key) {
            schema = non_null(schema);
        }
        properties.insert(key.into(), schema);
    }
    let mut required = vec!["type"];
    required.extend(shape.required);
    let mut schema = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    });
    if let Some(description) = description {
        schema["description"] = description;
    }
    schema
}

/// A property's schema in a derived object schema. The keys come from [`StepKind::keys`],
/// which the tests hold to [`Step`]'s and [`StepArgs`]'s fields; a name missing from them
/// allows nothing rather than anything.
fn step_key(object: &Value, key: &str) -> Value {
    object["properties"]
        .get(key)
        .cloned()
        .unwrap_or(Value::Bool(false))
}

/// `schema` without `null`: schemars gives an `Option` either a `type` list with `"null"` or an
/// `anyOf` with `{"type": "null"}`.
fn non_null(mut schema: Value) -> Value {
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            schema["type"] = only;
        }
    }
    let any_of = schema.get_mut("anyOf").and_then(Value::as_array_mut);
    if let Some(alternatives) = any_of {
        alternatives.retain(|a| *a != json!({ "type": "null" }));
        if alternatives.len() == 1 {
            let only = alternatives.remove(0);
            if let (Value::Object(outer), Value::Object(inner)) = (&mut schema, only) {
                outer.remove("anyOf");
                for (k, v) in inner {
                    outer.entry(k).or_insert(v);
                }
            }
        }
    }
    schema
}

/// The reader takes each camelCase key in kebab case too (serde aliases, which schemars does
/// not see). Each gets a `patternProperties` entry, which editors do not offer for completion,
/// so they offer the camelCase one; a required key may be either, and not both (serde refuses
/// a key given twice).
fn accept_kebab_case(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let aliases: Vec<(String, String, Value)> = match object.get("properties") {
                Some(Value::Object(properties)) => properties
                    .iter()
                    .map(|(name, schema)| (name.clone(), kebab_case(name), schema.clone()))
                    .filter(|(name, alias, _)| alias != name)
                    .collect(),
                _ => Vec::new(),
            };
            for (name, alias, schema) in aliases {
                let patterns = object
                    .entry("patternProperties")
                    .or_insert_with(|| json!({}));
                if let Value::Object(patterns) = patterns {
                    patterns.insert(format!("^{alias}$"), schema);
                }
                let mut rules = vec![json!({ "not": { "required": [name, alias] } })];
                if let Some(Value::Array(required)) = object.get_mut("required")
                    && let Some(at) = required.iter().position(|r| *r == name.as_str())
                {
                    required.remove(at);
                    rules.push(json!({
                        "anyOf": [{ "required": [name] }, { "required": [alias] }]
                    }));
                }
                let all_of = object.entry("allOf").or_insert_with(|| json!([]));
                if let Value::Array(all_of) = all_of {
                    all_of.extend(rules);
                }
            }
            for (key, child) in object.iter_mut() {
                // Patterns added above are this object's aliases, already done.
                if key != "patternProperties" {
                    accept_kebab_case(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(accept_kebab_case),
        _ => {}
    }
}

/// Descriptions one paragraph per line (doc comments are wrapped at 100 columns); no
/// `"default": null`, as an absent key already means nothing and editors would write the `null`
/// in when completing the key; no empty `required` or `description`.
fn tidy(value: &mut Value) {
    match value {
        Value::Object(object) => {
            for key in ["default", "description"] {
                if object.get(key) == Some(&Value::Null) {
                    object.remove(key);
                }
            }
            if object.get("required") == Some(&json!([])) {
                object.remove("required");
            }
            for (key, child) in object.iter_mut() {
                match child {
                    Value::String(text) if key == "description" => {
                        *text = text
                            .split("\n\n")
                            .map(|paragraph| paragraph.split('\n').collect::<Vec<_>>().join(" "))
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => tidy(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// Removes the definitions nothing refers to: the step schemas are written from [`Step`]'s
/// and [`StepArgs`]'s derived ones, whose own definitions are then left over.
fn drop_unused_definitions(root: &mut Value) {
    let Some(Value::Object(definitions)) = root.get_mut("$defs").map(Value::take) else {
        return;
    };
    let mut used = std::collections::BTreeSet::new();
    let mut pending = Vec::new();
    references(root, &mut pending);
    while let Some(reference) = pending.pop() {
        let Some(name) = reference.strip_prefix("#/$defs/") else {
            continue;
        };
        if used.insert(name.to_owned())
            && let Some(definition) = definitions.get(name)
        {
            references(definition, &mut pending);
        }
    }
    let kept: Map<String, Value> = definitions
        .into_iter()
        .filter(|(name, _)| used.contains(name))
        .collect();
    if let Value::Object(object) = root {
        object.insert("$defs".into(), Value::Object(kept));
    }
}

/// Every `$ref` in `value`.
fn references(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                match child {
                    Value::String(target) if key == "$ref" => out.push(target.clone()),
                    _ => references(child, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Reads a scenario whose execute phase is `steps`.
    fn read(steps: &[Value]) -> Result<(), String> {
        let document = json!({
            "$version": 1,
            "scenario": { "launch": { "executable": "sh" }, "execute": steps },
        });
        super::super::parse(&document.to_string(), "t.json".as_ref(), "".as_ref())
            .map(|_| ())
            .map_err(|e| e.message)
    }

    fn without(step: &Value, key: &str) -> Value {
        let mut step = step.clone();
        if let Some(object) = step.as_object_mut() {
            object.remove(key);
        }
        step
    }

    fn smallest_step(kind: StepKind) -> Value {
        match kind {
            StepKind::Wait => json!({ "type": "wait", "args": { "text": "a" } }),
            StepKind::Send => json!({ "type": "send", "inputs": [{ "text": "a" }] }),
            StepKind::Resize => json!({ "type": "resize", "args": { "width": 80, "height": 24 } }),
            StepKind::Capture => json!({ "type": "capture", "args": { "output": "a.svg" } }),
            StepKind::Command => json!({ "type": "command", "command": "true" }),
            StepKind::Snapshot => json!({ "type": "snapshot", "args": { "golden": "g.svg" } }),
            StepKind::Assert => json!({ "type": "assert", "args": { "text": "a" } }),
            StepKind::Sleep => json!({ "type": "sleep", "args": { "duration": "1ms" } }),
            StepKind::Mark => json!({ "type": "mark" }),
            StepKind::Stop => json!({ "type": "stop" }),
        }
    }

    /// A value of the right type for each argument any step takes.
    fn sample_arg(arg: &str) -> Value {
        match arg {
            "until" => json!("present"),
            "stableFor" | "timeout" | "idle" | "duration" => json!("1s"),
            "exit" | "last" => json!(true),
            "width" | "height" | "nth" => json!(10),
            "output" => json!("a.svg"),
            "golden" => json!("g.svg"),
            "row" | "col" => json!(0),
            "style" => json!({ "bold": true }),
            "cursor" => json!({ "row": 0, "col": 0 }),
            _ => json!("a"),
        }
    }

    fn property_names(schema: &Value) -> BTreeSet<String> {
        schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }

    #[test]
    fn the_step_table_names_the_fields_of_the_reader() {
        let mut generator = SchemaSettings::draft2020_12().into_generator();
        let step_keys = property_names(&Step::json_schema(&mut generator).to_value());
        let arg_names = property_names(&StepArgs::json_schema(&mut generator).to_value());
        let mut args_taken = BTreeSet::new();
        for kind in StepKind::ALL {
            let shape = kind.keys();
            for key in shape.keys {
                assert!(step_keys.contains(*key), "{kind:?}: {key}");
            }
            for arg in shape.args {
                assert!(arg_names.contains(*arg), "{kind:?}: {arg}");
                args_taken.insert(arg.to_string());
            }
            assert!(shape.required.iter().all(|k| shape.keys.contains(k)));
            assert!(shape.required_args.iter().all(|a| shape.args.contains(a)));
            assert_eq!(shape.args.is_empty(), !shape.keys.contains(&"args"));
        }
        assert_eq!(args_taken, arg_names, "an argument no step type takes");
        let kinds = StepKind::json_schema(&mut generator).to_value();
        let names: Vec<&str> = kinds["oneOf"]
            .as_array()
            .expect("one schema per step type")
            .iter()
            .filter_map(|v| v["const"].as_str())
            .collect();
        let all: Vec<&str> = StepKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(
            names, all,
            "StepKind::ALL is every step type, named as serde names it"
        );
    }

    /// The table's required keys and arguments are the ones the reader cannot do without, and
    /// the keys and arguments it does not list are refused.
    #[test]
    fn the_step_table_is_what_the_reader_checks() {
        let every_key = ["args", "inputs", "command", "options"];
        let mut generator = SchemaSettings::draft2020_12().into_generator();
        let every_arg = property_names(&StepArgs::json_schema(&mut generator).to_value());
        for kind in StepKind::ALL {
            let shape = kind.keys();
            let step = smallest_step(kind);
            assert_eq!(read(std::slice::from_ref(&step)), Ok(()), "{step}");
            for key in shape.required {
                let e = read(&[without(&step, key)])
                    .expect_err(&format!("{kind:?} without `{key}` is read"));
                assert!(
                    e.contains("needs") || e.contains("waits for"),
                    "{kind:?}: {e}"
                );
            }
            for arg in shape.required_args {
                let mut less = step.clone();
                if let Some(args) = less["args"].as_object_mut() {
                    args.remove(*arg);
                }
                let e = read(&[less]).expect_err(&format!("{kind:?} without `{arg}` is read"));
                assert!(e.contains("needs"), "{kind:?} without {arg}: {e}");
            }
            for key in every_key.iter().filter(|k| !shape.keys.contains(k)) {
                let mut more = step.clone();
                more[*key] = match *key {
                    "inputs" => json!([{ "text": "a" }]),
                    "command" => json!("true"),
                    _ => json!({}),
                };
                let e = read(&[more]).expect_err(&format!("{kind:?} with `{key}` is read"));
                assert!(
                    e.contains(&format!("not `{key}`")),
                    "{kind:?} with {key}: {e}"
                );
            }
            if shape.keys.contains(&"args") {
                for arg in every_arg
                    .iter()
                    .filter(|a| !shape.args.contains(&a.as_str()))
                {
                    let mut more = step.clone();
                    more["args"][arg.as_str()] = sample_arg(arg);
                    let e = read(&[more]).expect_err(&format!("{kind:?} with `{arg}` is read"));
                    assert!(
                        e.contains(&format!("not `{arg}`")),
                        "{kind:?} with {arg}: {e}"
                    );
                }
            }
        }
    }

    #[test]
    fn each_phase_lists_the_step_types_it_allows() {
        let schema = schema().to_value();
        for phase in Phase::ALL {
            let items = &schema["$defs"]["Scenario"]["properties"][phase.name()]["items"];
            let listed: Vec<&Value> = match items["allOf"].as_array() {
                Some(by_type) => by_type.iter().map(|a| &a["then"]["$ref"]).collect(),
                None => vec![&items["$ref"]],
            };
            let allowed: Vec<String> = StepKind::ALL
                .into_iter()
                .filter(|&k| phase.allows(k))
                .map(|k| format!("#/$defs/{}", step_definition(k)))
                .collect();
            assert_eq!(
                listed,
                allowed.iter().collect::<Vec<_>>(),
                "{}",
                phase.name()
            );
            for reference in allowed {
                let name = reference.trim_start_matches("#/$defs/");
                assert!(schema["$defs"][name].is_object(), "{name}");
                assert!(schema["$defs"][name]["description"].is_string(), "{name}");
            }
        }
    }

    /// Every kebab-case spelling the schema allows is one the reader reads, and a new camelCase
    /// key without its serde alias shows up here.
    #[test]
    fn kebab_spellings_are_the_readers_aliases() {
        fn aliases(value: &Value, out: &mut BTreeSet<String>) {
            match value {
                Value::Object(object) => {
                    if let Some(Value::Object(patterns)) = object.get("patternProperties") {
                        out.extend(patterns.keys().cloned());
                    }
                    object.values().for_each(|v| aliases(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| aliases(v, out)),
                _ => {}
            }
        }
        let mut found = BTreeSet::new();
        aliases(&schema().to_value(), &mut found);
        let expected: BTreeSet<String> = [
            "^working-dir$",
            "^shell-integration$",
            "^raw-hex$",
            "^stable-for$",
            "^to-row$",
            "^to-col$",
            "^key-release$",
            "^key-repeat$",
            "^exit-code$",
            "^exit-timeout$",
        ]
        .map(String::from)
        .into();
        assert_eq!(found, expected);
        let document = json!({
            "$version": 1,
            "options": { "exit-timeout": "2s" },
            "scenario": {
                "working-dir": { "temporary": true },
                "launch": { "executable": "sh", "shell-integration": false },
                "execute": [
                    { "type": "send", "inputs": [{ "raw-hex": "03" }] },
                    { "type": "wait", "args": { "text": "a", "stable-for": "1s" } },
                ],
            },
        });
        let read = super::super::parse(&document.to_string(), "t.json".as_ref(), "".as_ref());
        assert!(read.is_ok(), "{read:?}");
    }

    #[test]
    fn the_duration_pattern_is_what_parse_duration_reads() {
        let pattern = regex::Regex::new(DURATION_PATTERN).expect("a pattern");
        for text in [
            "500ms", "2s", "3m", "1h", "1.5", "0", "+2s", ".5s", "5.", " 1s ", "7d", "1e3", "-1s",
            "", "s", "1 s", "1S", "1.2.3", "inf", "NaN", ".", "+", "1ms2",
        ] {
            assert_eq!(
                pattern.is_match(text),
                crate::duration::parse_duration(text).is_ok(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_colour_pattern_is_what_an_assert_checks() {
        let pattern = regex::Regex::new(COLOR_PATTERN).expect("a pattern");
        let names = crate::term::ANSI_COLOR_NAMES;
        let others = [
            "default", "#00ff00", "#ABCDEF", "#abc", "Red", "bright-", "orange", "Default",
            "00ff00", "#00ff001", "",
        ];
        for text in names.into_iter().chain(others) {
            let colour = super::super::ColorExpectation::Named(text.into());
            assert_eq!(pattern.is_match(text), colour.check().is_ok(), "{text:?}");
        }
    }

    #[test]
    fn the_schema_has_its_name_and_draft() {
        let schema = schema().to_value();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(schema["$id"], ID);
        assert_eq!(schema["title"], TITLE);
        assert_eq!(schema["properties"]["$version"]["const"], 1);
        let text = json().expect("JSON");
        assert!(text.ends_with("}\n"));
        assert!(!text.contains("\"default\": null"));
    }
}
