/**
 * V8's compiled code of svc-iac and its dependencies kept on disk (the OS temp folder) and reused
 * by the next run: most of a command's start is module loading. Imported first by `main.ts`, so
 * that it is on before any other module of the command is compiled (an `import` is evaluated in
 * order, before the importing module's own statements).
 */
import { enableCompileCache } from "node:module";

enableCompileCache?.();
