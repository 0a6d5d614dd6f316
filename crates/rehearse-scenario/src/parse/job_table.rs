//! The `[job]` table: the job's file, its per-target overrides and its dependencies, checked
//! at load (paths resolved against the scenario file's directory).

use super::*;
use crate::dependencies::Dependencies;

/// `[job]`: a PySpark `file` (`.py`), or a `jar` (`.jar`) with its `main_class`; the file must
/// be a regular file (spark-submit decides by the extension how to run it).
pub(super) fn job(spec: &JobSpec, dir: &Relative) -> Result<Job, String> {
    let job = match (&spec.file, &spec.jar, &spec.main_class) {
        (Some(f), None, None) => Job::Python {
            file: dir.resolve(f),
        },
        (None, Some(j), Some(m)) => Job::Jar {
            jar: dir.resolve(j),
            main_class: m.clone(),
        },
        (None, Some(_), None) => return Err("[job] jar needs `main_class`".into()),
        _ => return Err("[job] needs either `file` (PySpark) or `jar` with `main_class`".into()),
    };
    let job_path = match &job {
        Job::Python { file } => file,
        Job::Jar { jar, .. } => jar,
    };
    let (key, ext, other) = match &job {
        Job::Python { .. } => ("file", "py", "a jar goes in `jar` with `main_class`"),
        Job::Jar { .. } => ("jar", "jar", "a PySpark file goes in `file`"),
    };
    if job_path.extension().and_then(|e| e.to_str()) != Some(ext) {
        return Err(format!(
            "[job] {key} = {}: spark-submit runs a .{ext} file here and decides by the extension; rename the file to end in .{ext} ({other})",
            job_path.display()
        ));
    }
    placeholders::check_versions(&job_path.to_string_lossy(), &format!("[job] {key}"))?;
    Ok(job)
}

/// Which argument lists a restart would run without `{checkpoint}`: `[job] args` with
/// `restart_args` (appended on the restart), and each `[job.per_target]` entry that replaces
/// either. Empty when every restart names it.
pub(super) fn checkpoint_unnamed(job: &JobSpec) -> Vec<String> {
    let names = |lists: &[&[String]]| {
        lists
            .iter()
            .any(|l| l.iter().any(|a| a.contains("{checkpoint}")))
    };
    let mut unnamed = Vec::new();
    if !names(&[&job.args, &job.restart_args]) {
        unnamed.push("[job] args (with restart_args)".to_string());
    }
    for (key, o) in &job.per_target {
        if o.args.is_none() && o.restart_args.is_none() {
            continue;
        }
        let args = o.args.as_deref().unwrap_or(&job.args);
        let restart = o.restart_args.as_deref().unwrap_or(&job.restart_args);
        if !names(&[args, restart]) {
            unnamed.push(format!("[job.per_target.{key:?}] args (with restart_args)"));
        }
    }
    unnamed
}

/// `[job.per_target."KEY"]`: each key a release or a pattern ([`TargetPattern`]), each entry's
/// keys consistent; paths resolved, their existence checked per target by
/// [`Scenario::check_artifacts`].
pub(super) fn per_target(
    specs: &BTreeMap<String, JobOverrideSpec>,
    base: &Job,
    dir: &Relative,
) -> Result<Vec<JobOverride>, String> {
    let mut out = Vec::new();
    for (key, spec) in specs {
        // A jar entry over a PySpark base has no main class to inherit: the trial would start
        // Kafka and Spark and fail there.
        if matches!(base, Job::Python { .. })
            && spec.file.is_none()
            && spec.jar.is_some()
            && spec.main_class.is_none()
        {
            return Err(format!(
                "[job.per_target.{key:?}] jar needs main_class: the base [job] is a PySpark file, so there is no main class to inherit; add main_class = \"…\" to this entry"
            ));
        }
        let o = JobOverride {
            key: key.clone(),
            pattern: TargetPattern::parse(key)?,
            jar: spec.jar.as_deref().map(|p| dir.resolve(p)),
            file: spec.file.as_deref().map(|p| dir.resolve(p)),
            main_class: spec.main_class.clone(),
            args: spec.args.clone(),
            restart_args: spec.restart_args.clone(),
        };
        check_entry(&o)?;
        out.push(o);
    }
    Ok(out)
}

/// `[job]` `packages`, `jars`, `py_files` and `requirements`: coordinates well formed for every
/// Spark version the scenario runs (targets and the generating version), files regular with the
/// extension spark-submit expects, `requirements` only for a PySpark job.
pub(super) fn dependencies(
    spec: &JobSpec,
    job: &Job,
    checkpoint: &CheckpointSource,
    targets: &[String],
    dir: &Relative,
) -> Result<Dependencies, String> {
    let mut versions: Vec<&str> = targets.iter().map(String::as_str).collect();
    if let CheckpointSource::Generate { spark, .. } = checkpoint {
        versions.push(spark.as_str());
    }
    crate::dependencies::check_packages(&spec.packages, &versions)?;
    // Each path, `{spark}`/`{scala}` filled for every version, is a regular file with the
    // extension spark-submit expects, and no two share a file name (they share `deps/`).
    let files = |key: &str, paths: &[PathBuf], exts: &[&str]| -> Result<Vec<PathBuf>, String> {
        let what = format!("[job] {key}");
        let written: Vec<PathBuf> = paths.iter().map(|p| dir.resolve(p)).collect();
        for p in &written {
            crate::placeholders::check_versions(&p.to_string_lossy(), &what)?;
        }
        for v in &versions {
            let filled = crate::dependencies::fill_paths(&written, v);
            for (i, path) in filled.iter().enumerate() {
                let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
                if !exts.contains(&ext) {
                    return Err(format!(
                        "{what}: {} does not end in {}: spark-submit passes only such files with --{}; name the file itself",
                        path.display(),
                        exts.iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(" or "),
                        key.replace('_', "-")
                    ));
                }
                let for_version = if filled[i] == written[i] {
                    String::new()
                } else {
                    format!(" (for Spark {v})")
                };
                userfile::check_regular(path, &format!("{what}{for_version}"), u64::MAX)
                    .map_err(|e| e.to_string())?;
                let name = crate::dependencies::file_name(path);
                if filled[..i]
                    .iter()
                    .any(|o| crate::dependencies::file_name(o) == name)
                {
                    return Err(format!(
                        "{what}: two files are named {name:?}: they would overwrite each other in the sandbox; rename one"
                    ));
                }
            }
        }
        Ok(written)
    };
    let jars = files("jars", &spec.jars, &["jar"])?;
    let py_files = files("py_files", &spec.py_files, &["py", "zip", "egg"])?;
    if !py_files.is_empty() && !matches!(job, Job::Python { .. }) {
        return Err("[job] py_files is for a PySpark job (`file`); a jar job's own dependencies go in `jars` or `packages`".into());
    }
    let requirements = match &spec.requirements {
        None => None,
        Some(_) if !matches!(job, Job::Python { .. }) => {
            return Err("[job] requirements is for a PySpark job (`file`): its packages are installed for the image's Python; a jar job's dependencies go in `jars` or `packages`".into())
        }
        Some(r) => {
            // `{spark}`/`{scala}` are filled per Spark version, as in `jars` and `py_files`;
            // each filled file is read and its lines checked.
            let path = dir.resolve(r);
            crate::placeholders::check_versions(&path.to_string_lossy(), "[job] requirements")?;
            for v in &versions {
                let filled = crate::dependencies::fill_paths(std::slice::from_ref(&path), v)
                    .pop()
                    .unwrap_or_else(|| path.clone());
                let what = if filled == path {
                    "[job] requirements".to_string()
                } else {
                    format!(
                        "[job] requirements ({} with {{spark}}/{{scala}} filled for Spark {v})",
                        path.display()
                    )
                };
                let bytes = userfile::read_bytes(&filled, &what, userfile::MAX_CONFIG_BYTES)
                    .map_err(|e| e.to_string())?;
                crate::dependencies::check_requirements(&filled, &String::from_utf8_lossy(&bytes))?;
            }
            Some(path)
        }
    };
    Ok(Dependencies {
        packages: spec.packages.clone(),
        jars,
        py_files,
        requirements,
    })
}
