export type Program = 'redis' | 'postgres' | 'chromium' | 'haproxy' | 'openssl';
export declare const PACKAGES: Record<Program, string>;
export declare function onPath(name: string): string | undefined;
export declare function postgresBin(): string | undefined;
export declare function findPrograms(): Record<Program, string | undefined>;
export declare function missingPackages(found?: Record<Program, string | undefined>): string[];
export declare function installCommand(packages: string[]): string;
export declare function missingProgramMessage(program: Program): string;
