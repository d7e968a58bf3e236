// Entry point for `import ... from "@aclwasm/sdk"`: asc resolves a package
// import to node_modules/<package>/index.ts.
export * from "./assembly/index";
