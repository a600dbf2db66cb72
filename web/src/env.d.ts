// esbuild bundles the style sheet imported by main.tsx.
declare module '*.css'
