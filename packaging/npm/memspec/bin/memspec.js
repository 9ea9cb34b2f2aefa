#!/usr/bin/env node
// Runs the memspec binary from the platform package npm installed beside this one
// (optionalDependencies with os/cpu/libc: npm installs only the one that fits), with the same
// arguments, stdio, exit code and signals. No download happens at install or run time.
'use strict';

const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

// Platform packages built today; others are built the same way elsewhere (packaging/README.md).
const PACKAGES = {
  'linux-x64-glibc': '@memspec/linux-x64',
};

function libc() {
  if (process.platform !== 'linux') return '';
  // glibc's version is in the process report; musl has none there.
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
  return report?.header?.glibcVersionRuntime ? 'glibc' : 'musl';
}

function binaryPath() {
  const key = [process.platform, os.arch(), libc()].filter(Boolean).join('-');
  const pkg = PACKAGES[key];
  if (!pkg) {
    throw new Error(
      `memspec has no prebuilt binary for ${key}; install it with \`cargo install memspec\` ` +
        'or `pip install memspec` where a wheel exists',
    );
  }
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'memspec');
  } catch {
    throw new Error(
      `${pkg} is not installed: npm skips optional dependencies with --omit=optional or ` +
        '--no-optional; reinstall memspec without it',
    );
  }
}

function main() {
  let binary;
  try {
    binary = binaryPath();
  } catch (e) {
    process.stderr.write(`memspec: ${e.message}\n`);
    process.exit(4);
  }
  const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });
  // Forward the signals a terminal or CI runner sends, so memspec can stop its backends and
  // remove its sandboxes; the child is in our process group, so a Ctrl-C reaches it already and
  // forwarding it again is harmless.
  const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
  const handlers = forwarded.map((signal) => {
    const handler = () => {
      try {
        child.kill(signal);
      } catch {}
    };
    process.on(signal, handler);
    return [signal, handler];
  });
  child.on('error', (e) => {
    process.stderr.write(`memspec: cannot run ${binary}: ${e.message}\n`);
    process.exit(4);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      // Die of the same signal, so a shell sees what it would have seen without this launcher.
      for (const [s, h] of handlers) process.removeListener(s, h);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

main();
