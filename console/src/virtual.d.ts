declare module 'virtual:json-meta-schemas' {
  type Compiled = ((data: unknown) => boolean) & {
    errors?: Array<{ instancePath: string; message?: string }> | null;
  };
  export const draft2020: Compiled;
  export const draft07: Compiled;
}
